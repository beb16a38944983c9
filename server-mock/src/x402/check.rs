//! The checks a payment passes here, before the facilitator's: scheme, network, asset,
//! amount (at least the worst case), payee, validity window, and that `agent_wallet` signed it
//! (the EIP-712 signer recovered). The payer's balance and allowance are the facilitator's to
//! check.

use alloy_primitives::{Address, U256};
use axum::http::HeaderMap;

use super::eip712::{self, UPTO_PROXY};
use super::offer::Offer;
use super::wire::{self, ExactPayload, PaymentPayload, Requirements, UptoPayload};
use crate::store::{PaymentNonce, X402Settings};

/// An authorization must still be valid this long when it is checked.
const MARGIN_SECONDS: u64 = 6;
/// An `upto` authorization must still be valid this long: the answer comes first.
const UPTO_MARGIN_SECONDS: u64 = 120;

/// A payment that passed the checks made here.
pub(super) struct Checked {
    pub(super) requirements: Requirements,
    pub(super) payer: Address,
    pub(super) authorized: U256,
    pub(super) nonce: PaymentNonce,
    pub(super) expires_at: chrono::DateTime<chrono::Utc>,
}

/// Checks `payment` against `offer` and `wallet`: everything but the payer's balance and
/// allowance, which the facilitator checks.
pub(super) fn check(
    offer: &Offer,
    settings: &X402Settings,
    payment: &PaymentPayload,
    wallet: &str,
) -> Result<Checked, String> {
    let (scheme, network) = match (&payment.accepted, &payment.scheme, &payment.network) {
        (Some(accepted), _, _) => (accepted.scheme.clone(), accepted.network.clone()),
        (None, Some(scheme), Some(network)) => (scheme.clone(), v1_network(network)),
        _ => return Err("the payment names no scheme and network (no `accepted`)".into()),
    };
    let wanted = offer.get(&scheme).ok_or_else(|| {
        format!(
            "scheme {scheme:?} is not offered: pay with one of {}",
            offer.schemes()
        )
    })?;
    if network != wanted.network {
        return Err(format!("network {network:?} is not {}", wanted.network));
    }
    if let Some(accepted) = &payment.accepted {
        same_address("asset", &accepted.asset, &wanted.asset)?;
        same_address("payTo", &accepted.pay_to, &wanted.pay_to)?;
    }
    let chain = eip712::chain_id(&network).ok_or("the network is not an EVM chain")?;
    let required = eip712::parse_uint(&wanted.amount)?;
    let wallet = eip712::parse_address(wallet)?;
    let now = chrono::Utc::now().timestamp() as u64;
    let (payer, authorized, nonce, expires) = match scheme.as_str() {
        "exact" => {
            let exact: ExactPayload = serde_json::from_value(payment.payload.clone())
                .map_err(|err| format!("not an exact payload: {err}"))?;
            let message = eip712::transfer(&exact.authorization)?;
            same_address("authorization.to", &exact.authorization.to, &wanted.pay_to)?;
            window(message.validAfter, message.validBefore, now, MARGIN_SECONDS)?;
            let token = eip712::parse_address(&settings.asset)?;
            let domain =
                eip712::token_domain(&settings.asset_name, &settings.asset_version, chain, token);
            let signer = eip712::signer(&message, &domain, &exact.signature)?;
            if signer != message.from {
                return Err("the signature is not from authorization.from".into());
            }
            (
                signer,
                message.value,
                (settings.asset.clone(), message.nonce.to_string()),
                message.validBefore,
            )
        }
        "upto" => {
            let upto: UptoPayload = serde_json::from_value(payment.payload.clone())
                .map_err(|err| format!("not an upto payload: {err}"))?;
            let message = eip712::permit(&upto.permit2_authorization)?;
            if message.spender != UPTO_PROXY {
                return Err(format!(
                    "the spender must be the x402 upto proxy {UPTO_PROXY}"
                ));
            }
            same_address(
                "permitted.token",
                &upto.permit2_authorization.permitted.token,
                &settings.asset,
            )?;
            same_address(
                "witness.to",
                &upto.permit2_authorization.witness.to,
                &wanted.pay_to,
            )?;
            let settler = wanted.extra["facilitatorAddress"]
                .as_str()
                .unwrap_or_default();
            same_address(
                "witness.facilitator",
                &upto.permit2_authorization.witness.facilitator,
                settler,
            )?;
            window(
                message.witness.validAfter,
                message.deadline,
                now,
                UPTO_MARGIN_SECONDS,
            )?;
            let domain = eip712::permit2_domain(chain);
            let signer = eip712::signer(&message, &domain, &upto.signature)?;
            let from = eip712::parse_address(&upto.permit2_authorization.from)?;
            if signer != from {
                return Err("the signature is not from permit2Authorization.from".into());
            }
            let nonce = (eip712::PERMIT2.to_checksum(None), message.nonce.to_string());
            (signer, message.permitted.amount, nonce, message.deadline)
        }
        other => return Err(format!("scheme {other:?} is not offered")),
    };
    if payer != wallet {
        return Err(format!(
            "the payment is signed by {payer}, not by agent_wallet {wallet}"
        ));
    }
    if authorized < required {
        return Err(format!(
            "the payment authorizes {authorized} atomic units; {scheme} for this request needs {required}"
        ));
    }
    let mut requirements = wanted.clone();
    requirements.amount = authorized.to_string();
    let expires = u64::try_from(expires)
        .unwrap_or(u64::MAX)
        .min(i64::MAX as u64) as i64;
    Ok(Checked {
        requirements,
        payer,
        authorized,
        nonce: PaymentNonce {
            network,
            contract: nonce.0,
            payer: payer.to_checksum(None),
            nonce: nonce.1,
        },
        expires_at: chrono::DateTime::from_timestamp(expires, 0).unwrap_or_default(),
    })
}

/// Whether `[valid_after, valid_before)` holds now and for `margin` seconds more.
fn window(valid_after: U256, valid_before: U256, now: u64, margin: u64) -> Result<(), String> {
    if valid_after > U256::from(now) {
        return Err("the authorization is not valid yet (validAfter is in the future)".into());
    }
    if valid_before < U256::from(now + margin) {
        return Err(format!(
            "the authorization expires too soon: it must stay valid {margin} s more"
        ));
    }
    Ok(())
}

fn same_address(field: &str, given: &str, wanted: &str) -> Result<(), String> {
    let given_address = eip712::parse_address(given)?;
    match eip712::parse_address(wanted) {
        Ok(wanted) if wanted == given_address => Ok(()),
        _ => Err(format!("{field} is {given}, not {wanted}")),
    }
}

/// A v1 network name as CAIP-2 (the two v1 names of Base; others as they are).
fn v1_network(name: &str) -> String {
    match name {
        "base" => "eip155:8453".into(),
        "base-sepolia" => "eip155:84532".into(),
        other => other.to_string(),
    }
}

/// The payment header and its name: v2's `PAYMENT-SIGNATURE`, or v1's `X-PAYMENT`. An empty one
/// counts as absent (the answer is then the offer), as x402's own servers treat it.
pub(super) fn payment_header(headers: &HeaderMap) -> Option<(&'static str, &str)> {
    [
        ("PAYMENT-SIGNATURE", wire::PAYMENT_SIGNATURE),
        ("X-PAYMENT", wire::X_PAYMENT),
    ]
    .into_iter()
    .find_map(|(shown, name)| {
        let value = headers.get(name)?.to_str().ok()?.trim();
        Some((shown, value)).filter(|_| !value.is_empty())
    })
}
