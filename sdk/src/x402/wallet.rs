//! An agent's wallet: a private key held in memory (never shown), which signs an x402 offer the
//! way the official clients do (`upto`: a Permit2 `PermitWitnessTransferFrom` to the x402 upto
//! proxy; `exact`: an EIP-3009 `transferWithAuthorization`), and never more than a limit per
//! payment.

use std::path::Path;
use std::str::FromStr;

use alloy_primitives::{Address, B256, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::Eip712Domain;
use base64::Engine;
use serde_json::{Value, json};

use tokctl_x402::{
    PermitWitnessTransferFrom, TokenPermissions, TransferWithAuthorization, UPTO_PROXY, Witness,
    chain_id, permit2_domain, token_domain,
};

use crate::error::{Error, Result};

/// A wallet that pays x402 offers, at most `max_payment` atomic units of a token each. Its key
/// is never shown: `Debug` prints the address.
#[derive(Clone)]
pub struct Wallet {
    signer: PrivateKeySigner,
    max_payment: U256,
}

impl std::fmt::Debug for Wallet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wallet")
            .field("address", &self.address())
            .field("max_payment", &self.max_payment.to_string())
            .finish()
    }
}

impl Wallet {
    /// A wallet of the private key `key` (64 hexadecimal digits, `0x` or not) that signs
    /// payments of at most `max_payment` atomic units (`50000` is 0.05 of a 6-decimal token).
    pub fn from_key(key: &str, max_payment: u128) -> Result<Wallet> {
        let signer = PrivateKeySigner::from_str(key.trim())
            .map_err(|_| Error::Config("the wallet key is not 32 bytes of hexadecimal".into()))?;
        Ok(Wallet {
            signer,
            max_payment: U256::from(max_payment),
        })
    }

    /// A wallet whose private key is the first line of the file at `path`, which others must
    /// not be able to read (mode 0600 or stricter on Unix).
    pub fn from_key_file(path: impl AsRef<Path>, max_payment: u128) -> Result<Wallet> {
        let path = path.as_ref();
        let shown = path.display();
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let meta = std::fs::metadata(path).map_err(|err| {
                Error::Config(format!("cannot read the wallet key {shown}: {err}"))
            })?;
            if meta.mode() & 0o077 != 0 {
                return Err(Error::Config(format!(
                    "the wallet key {shown} may be read by others (mode {:o}): chmod 600 it",
                    meta.mode() & 0o777
                )));
            }
        }
        let text = std::fs::read_to_string(path)
            .map_err(|err| Error::Config(format!("cannot read the wallet key {shown}: {err}")))?;
        let key = text.lines().next().unwrap_or_default();
        Wallet::from_key(key, max_payment).map_err(|_| {
            Error::Config(format!(
                "{shown} holds no private key (64 hexadecimal digits)"
            ))
        })
    }

    /// The wallet's address (EIP-55 checksum form): the `agent_wallet` it pays for.
    pub fn address(&self) -> String {
        self.signer.address().to_checksum(None)
    }

    /// The most it pays at once, in atomic units.
    pub fn max_payment(&self) -> String {
        self.max_payment.to_string()
    }

    /// `PAYMENT-SIGNATURE` for `offer` (an x402 `PaymentRequired`): its `upto` requirement
    /// when it has one (paying what the answer costs), else its `exact` one; refused when the
    /// amount asked is over the wallet's limit or the offer is not one the wallet can sign.
    pub fn pay(&self, offer: &Value) -> Result<String> {
        let accepts = offer["accepts"].as_array().cloned().unwrap_or_default();
        let wanted = ["upto", "exact"]
            .iter()
            .find_map(|scheme| accepts.iter().find(|r| r["scheme"] == *scheme))
            .ok_or_else(|| payment("the offer has neither an upto nor an exact requirement"))?;
        let amount = uint(&wanted["amount"])?;
        if amount > self.max_payment {
            return Err(payment(format!(
                "the server asks up to {amount} atomic units of {}; this wallet pays at most {} \
                 (raise max_payment to pay it)",
                wanted["asset"].as_str().unwrap_or("the token"),
                self.max_payment
            )));
        }
        let network = wanted["network"].as_str().unwrap_or_default();
        let chain = chain_id(network)
            .ok_or_else(|| payment(format!("network {network:?} is not an EVM chain")))?;
        let timeout = wanted["maxTimeoutSeconds"].as_u64().unwrap_or(300).max(1);
        let deadline = U256::from(chrono::Utc::now().timestamp().max(0) as u64 + timeout);
        let mut nonce = [0u8; 32];
        getrandom::fill(&mut nonce).map_err(|err| payment(format!("no randomness: {err}")))?;
        let pay_to = addr(&wanted["payTo"])?;
        let asset = addr(&wanted["asset"])?;
        let me = self.signer.address();
        let signed = match wanted["scheme"].as_str() {
            Some("upto") => {
                let facilitator = addr(&wanted["extra"]["facilitatorAddress"])?;
                let nonce = U256::from_be_bytes(nonce);
                let message = PermitWitnessTransferFrom {
                    permitted: TokenPermissions {
                        token: asset,
                        amount,
                    },
                    spender: UPTO_PROXY,
                    nonce,
                    deadline,
                    witness: Witness {
                        to: pay_to,
                        facilitator,
                        validAfter: U256::ZERO,
                    },
                };
                let signature = self.sign(&message, &permit2_domain(chain))?;
                json!({"signature": signature, "permit2Authorization": {
                    "from": me.to_checksum(None),
                    "permitted": {"token": asset.to_checksum(None), "amount": amount.to_string()},
                    "spender": UPTO_PROXY.to_checksum(None), "nonce": nonce.to_string(),
                    "deadline": deadline.to_string(),
                    "witness": {"to": pay_to.to_checksum(None),
                        "facilitator": facilitator.to_checksum(None), "validAfter": "0"}}})
            }
            _ => {
                let text = |field: &str| wanted["extra"][field].as_str().map(str::to_string);
                let (name, version) = text("name").zip(text("version")).ok_or_else(|| {
                    payment("the exact offer names no token domain (extra.name, extra.version)")
                })?;
                let message = TransferWithAuthorization {
                    from: me,
                    to: pay_to,
                    value: amount,
                    validAfter: U256::ZERO,
                    validBefore: deadline,
                    nonce: B256::from(nonce),
                };
                let domain = token_domain(&name, &version, chain, asset);
                let signature = self.sign(&message, &domain)?;
                json!({"signature": signature, "authorization": {
                    "from": me.to_checksum(None), "to": pay_to.to_checksum(None),
                    "value": amount.to_string(), "validAfter": "0",
                    "validBefore": deadline.to_string(), "nonce": B256::from(nonce).to_string()}})
            }
        };
        let mut payment_payload = json!({"x402Version": 2, "accepted": wanted, "payload": signed});
        if offer["resource"].is_object() {
            payment_payload["resource"] = offer["resource"].clone();
        }
        Ok(base64::engine::general_purpose::STANDARD.encode(payment_payload.to_string()))
    }

    fn sign<T: alloy_sol_types::SolStruct>(
        &self,
        message: &T,
        domain: &Eip712Domain,
    ) -> Result<String> {
        self.signer
            .sign_typed_data_sync(message, domain)
            .map(|signature| signature.to_string())
            .map_err(|err| payment(format!("cannot sign: {err}")))
    }
}

fn payment(why: impl Into<String>) -> Error {
    Error::Payment(why.into())
}

fn uint(value: &Value) -> Result<U256> {
    value
        .as_str()
        .and_then(|text| U256::from_str_radix(text, 10).ok())
        .ok_or_else(|| payment(format!("the offer's amount {value} is not a whole number")))
}

fn addr(value: &Value) -> Result<Address> {
    value
        .as_str()
        .and_then(|text| Address::from_str(text).ok())
        .ok_or_else(|| payment(format!("the offer's {value} is not an address")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

    fn offer(amount: &str) -> Value {
        json!({"x402Version": 2, "resource": {"url": "http://h/v1/chat/completions"}, "accepts": [
            {"scheme": "exact", "network": "eip155:84532", "amount": amount,
             "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
             "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds": 300,
             "extra": {"name": "USDC", "version": "2"}},
            {"scheme": "upto", "network": "eip155:84532", "amount": amount,
             "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
             "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds": 3600,
             "extra": {"name": "USDC", "version": "2",
                 "facilitatorAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"}}]})
    }

    fn decoded(header: &str) -> Value {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(header)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn upto_is_preferred_and_the_offer_echoed() {
        let wallet = Wallet::from_key(KEY, 1_000).unwrap();
        assert_eq!(
            wallet.address(),
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
        );
        let paid = decoded(&wallet.pay(&offer("205")).unwrap());
        assert_eq!(paid["accepted"]["scheme"], "upto");
        assert_eq!(paid["accepted"], offer("205")["accepts"][1]);
        let authorization = &paid["payload"]["permit2Authorization"];
        assert_eq!(authorization["permitted"]["amount"], "205");
        assert_eq!(authorization["spender"], UPTO_PROXY.to_checksum(None));
        assert_eq!(authorization["from"], wallet.address());
        assert!(format!("{wallet:?}").contains(&wallet.address()));
        assert!(!format!("{wallet:?}").contains("59c6995e"));
    }

    #[test]
    fn more_than_the_limit_is_refused_before_signing() {
        let wallet = Wallet::from_key(KEY, 204).unwrap();
        let err = wallet.pay(&offer("205")).unwrap_err();
        assert!(matches!(err, Error::Payment(_)), "{err}");
        assert!(err.to_string().contains("at most 204"), "{err}");
        let mut exact_only = offer("100");
        exact_only["accepts"].as_array_mut().unwrap().pop();
        let paid = decoded(&wallet.pay(&exact_only).unwrap());
        assert_eq!(paid["payload"]["authorization"]["value"], "100");
        assert!(Wallet::from_key("0x1234", 1).is_err());
    }
}
