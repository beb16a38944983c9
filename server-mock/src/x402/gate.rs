//! Whether a chat request is paid. A request naming an `agent_wallet` on a workspace with x402
//! terms is answered 402 with an offer (`upto` first when the facilitator settles it, then
//! `exact`) for its worst case, until it carries a payment (`PAYMENT-SIGNATURE`, or v1's
//! `X-PAYMENT`). A payment is checked here (scheme, network, asset, amount, payee, validity
//! window, that `agent_wallet` signed it, that its nonce was never used), then by the
//! facilitator's `/verify`. `exact` is settled before the answer; `upto` after it, for what the
//! answer cost ([`Payment::finish`]); an `upto` settlement the facilitator could not make is
//! retried from the outbox (`outbox.rs`).
//!
//! `upto` is offered for the dearest worst case among the candidates the request could be
//! routed to, since it settles what the answer cost; `exact`, paid in full whatever answers, for
//! the first candidate's. A paid request is routed only among the candidates its payment covers
//! ([`Payment::covers`]): an `exact` payment of more than the offer covers dearer fallbacks.

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;

use super::check::{check, payment_header};
use super::facilitator::Facilitator;
use super::offer::{Offer, facilitator_down, invalid, refused_by_store, resource, unavailable};
use super::payment::Payment;
use super::price;
use super::wire::{self, PaymentPayload};
use crate::credits::Credits;
use crate::store::{self, PaymentRecord, PaymentStatus, Store};

/// The request as far as payment goes.
pub struct Ask<'a> {
    pub store: &'a Arc<dyn Store>,
    pub facilitator: &'a Arc<Facilitator>,
    pub workspace_id: &'a str,
    pub request_id: Option<&'a str>,
    pub wallet: Option<&'a str>,
    /// The most the request can cost: the dearest worst case (as `budget_limit` reckons it)
    /// among the candidates it could be routed to, offered for `upto`.
    pub worst: Credits,
    /// The worst case of the candidate routing tries first, offered for `exact`.
    pub first: Credits,
    pub headers: &'a HeaderMap,
}

/// Checks `ask`'s payment: `Ok(None)` when the request needs none, `Ok(Some)` when it is paid
/// (not settled yet; an `upto` payment already recorded, for nothing so far), `Err` with the
/// answer to send (402 with the offer, or why not).
pub async fn admit(ask: &Ask<'_>) -> Result<Option<Payment>, Response> {
    let Some(wallet) = ask.wallet else {
        return Ok(None);
    };
    let settings = match ask.store.x402_settings(ask.workspace_id).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return Ok(None),
        Err(err) => return Err(refused_by_store(err)),
    };
    let (Some(worst), Some(first)) = (
        price::atomic(ask.worst, &settings.credit_price),
        price::atomic(ask.first, &settings.credit_price),
    ) else {
        return Err(unavailable(
            "the workspace's credit_price cannot price this request",
        ));
    };
    if worst.is_zero() {
        return Ok(None);
    }
    let settler = match ask
        .facilitator
        .upto_settler(&settings.facilitator_url, &settings.network)
        .await
    {
        Ok(settler) => settler,
        Err(err) => {
            // `exact` needs no address of the facilitator's: offer that alone.
            tracing::warn!(error = %err, "x402: cannot ask the facilitator what it settles");
            None
        }
    };
    let offer = Offer::new(
        &settings,
        (worst, first),
        settler.as_deref(),
        resource(ask.headers),
    );
    let Some((version, payment)) = payment_header(ask.headers) else {
        return Err(offer.refuse("payment_required", "Payment required: this workspace takes x402 payments for requests naming an agent_wallet; pay with the PAYMENT-SIGNATURE header"));
    };
    let payment: PaymentPayload = match wire::decode(payment) {
        Ok(payment) => payment,
        Err(why) => {
            return Err(invalid(format!(
                "The {version} header is not an x402 payment: {why}"
            )));
        }
    };
    let checked = match check(&offer, &settings, &payment, wallet) {
        Ok(checked) => checked,
        Err(why) => return Err(offer.refuse("invalid_payment", &why)),
    };
    let fresh = ask.store.claim_nonce(checked.nonce.clone()).await;
    match fresh {
        Ok(true) => {}
        Ok(false) => {
            return Err(offer.refuse(
                "invalid_payment",
                "This payment was used before: sign a new one (a new nonce)",
            ));
        }
        Err(err) => return Err(refused_by_store(err)),
    }
    let url = &settings.facilitator_url;
    match ask
        .facilitator
        .verify(url, &payment, &checked.requirements)
        .await
    {
        Ok(verdict) if verdict.is_valid => {}
        Ok(verdict) => {
            let reason = verdict
                .invalid_reason
                .unwrap_or_else(|| "no reason given".into());
            return Err(offer.refuse(
                "invalid_payment",
                &format!("The facilitator refused the payment: {reason}"),
            ));
        }
        Err(err) => return Err(facilitator_down(&err)),
    }
    let now = store::now();
    let record = PaymentRecord {
        id: crate::secrets::new_id("pay_"),
        workspace_id: ask.workspace_id.to_string(),
        request_id: ask.request_id.map(String::from),
        usage_id: None,
        model: None,
        scheme: checked.requirements.scheme.clone(),
        network: settings.network.clone(),
        asset: settings.asset.clone(),
        payer: checked.payer.to_checksum(None),
        authorized: checked.authorized.to_string(),
        // Until the answer says what it cost, nothing (an answer cut by a crash costs nothing).
        amount: "0".into(),
        status: PaymentStatus::Pending,
        transaction: None,
        error: None,
        payment: serde_json::to_string(&payment).unwrap_or_default(),
        requirements: serde_json::to_string(&checked.requirements).unwrap_or_default(),
        facilitator_url: url.clone(),
        attempts: 0,
        next_attempt_at: checked.expires_at,
        expires_at: checked.expires_at,
        created_at: now,
        settled_at: None,
    };
    let payment = Payment {
        record,
        payment,
        requirements: checked.requirements,
        authorized: checked.authorized,
        credit_price: settings.credit_price.clone(),
        store: ask.store.clone(),
        facilitator: ask.facilitator.clone(),
    };
    payment.open().await?;
    Ok(Some(payment))
}
