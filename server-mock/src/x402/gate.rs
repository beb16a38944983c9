//! Whether a chat request is paid. A request naming an `agent_wallet` on a workspace with x402
//! terms is answered 402 with an offer (`upto` first when the facilitator settles it, then
//! `exact`) for its worst-case cost, until it carries a payment (`PAYMENT-SIGNATURE`, or v1's
//! `X-PAYMENT`). A payment is checked here (scheme, network, asset, amount, payee, validity
//! window, that `agent_wallet` signed it, that its nonce was never used), then by the
//! facilitator's `/verify`. `exact` is settled before the answer; `upto` after it, for what the
//! answer cost ([`Payment::finish`]); an `upto` settlement the facilitator could not make is
//! retried from the outbox (`outbox.rs`).

use std::sync::Arc;

use alloy_primitives::{Address, U256};
use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use super::eip712::{self, UPTO_PROXY};
use super::facilitator::{Facilitator, Unreachable};
use super::price;
use super::wire::{
    self, ExactPayload, PaymentPayload, PaymentRequired, Requirements, ResourceInfo,
    SettleResponse, UptoPayload,
};
use crate::credits::Credits;
use crate::store::{self, PaymentNonce, PaymentRecord, PaymentStatus, Store, X402Settings};

/// How long an `exact` authorization must stay valid (it is settled before the answer).
const EXACT_TIMEOUT_SECONDS: u64 = 300;
/// How long an `upto` authorization must stay valid: settled after the answer, retried after.
const UPTO_TIMEOUT_SECONDS: u64 = 3600;
/// An authorization must still be valid this long when it is checked.
const MARGIN_SECONDS: u64 = 6;
/// An `upto` authorization must still be valid this long: the answer comes first.
const UPTO_MARGIN_SECONDS: u64 = 120;

/// The request as far as payment goes.
pub struct Ask<'a> {
    pub store: &'a Arc<dyn Store>,
    pub facilitator: &'a Arc<Facilitator>,
    pub workspace_id: &'a str,
    pub request_id: Option<&'a str>,
    pub wallet: Option<&'a str>,
    /// The most the request can cost (the worst case `budget_limit` uses).
    pub worst: Credits,
    pub headers: &'a HeaderMap,
}

/// A verified payment, to settle.
pub struct Payment {
    record: PaymentRecord,
    payment: PaymentPayload,
    /// The requirements the client accepted, `amount` the amount it authorized.
    requirements: Requirements,
    upto: bool,
    authorized: U256,
    credit_price: String,
    store: Arc<dyn Store>,
    facilitator: Arc<Facilitator>,
}

/// What an answer was billed: its credits, its ledger entry and the model that answered.
#[derive(Debug, Clone)]
pub struct Charged {
    pub credits: Credits,
    pub usage_id: String,
    pub model: String,
}

/// What a settlement came to, as the final chunk's `platform.settlement` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Settlement {
    /// `settled`, `pending` (retried until settled or expired) or `failed`.
    pub status: &'static str,
    pub scheme: String,
    pub network: String,
    pub payer: String,
    /// Atomic units of the token.
    pub amount: String,
    /// The transaction, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Settlement {
    /// `PAYMENT-RESPONSE`'s value.
    pub fn header(&self) -> HeaderValue {
        let response = SettleResponse {
            success: self.status == "settled",
            transaction: self.transaction.clone().unwrap_or_default(),
            network: self.network.clone(),
            payer: Some(self.payer.clone()),
            error_reason: self.error.clone(),
            amount: Some(self.amount.clone()),
        };
        HeaderValue::from_str(&wire::encode(&response)).unwrap_or(HeaderValue::from_static(""))
    }
}

/// Checks `ask`'s payment: `Ok(None)` when the request needs none, `Ok(Some)` when it is paid
/// (not settled yet), `Err` with the answer to send (402 with the offer, or why not).
pub async fn admit(ask: &Ask<'_>) -> Result<Option<Payment>, Response> {
    let Some(wallet) = ask.wallet else {
        return Ok(None);
    };
    let settings = match ask.store.x402_settings(ask.workspace_id).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return Ok(None),
        Err(err) => return Err(refused_by_store(err)),
    };
    let Some(worst) = price::atomic(ask.worst, &settings.credit_price) else {
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
    let offer = Offer::new(&settings, worst, settler.as_deref(), resource(ask.headers));
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
    Ok(Some(Payment {
        record,
        payment,
        upto: checked.requirements.scheme == "upto",
        requirements: checked.requirements,
        authorized: checked.authorized,
        credit_price: settings.credit_price.clone(),
        store: ask.store.clone(),
        facilitator: ask.facilitator.clone(),
    }))
}

impl Payment {
    /// Before the upstream is asked: an `upto` payment is recorded (for nothing yet), so that
    /// an answer cut by a crash is settled for nothing rather than forgotten.
    pub async fn open(&mut self) -> Result<(), Response> {
        match self.upto {
            true => self.save().await.map_err(refused_by_store),
            false => Ok(()),
        }
    }

    /// Once the answer is there, before any of it is sent: `exact` settles the authorized
    /// amount; `Err` is the answer to send instead (the facilitator refused, or could not be
    /// reached: no answer is sent unpaid). Nothing for `upto`.
    pub async fn charge(&mut self) -> Result<(), Response> {
        if self.upto {
            return Ok(());
        }
        self.record.amount = self.authorized.to_string();
        let url = self.record.facilitator_url.clone();
        let settled = self
            .facilitator
            .settle(&url, &self.payment, &self.requirements)
            .await;
        match settled {
            Ok(response) if response.success => {
                self.settled(response.transaction);
                self.save().await.map_err(refused_by_store)
            }
            Ok(response) => {
                let reason = response
                    .error_reason
                    .unwrap_or_else(|| "no reason given".into());
                self.record.status = PaymentStatus::Failed;
                self.record.error = Some(reason.clone());
                let _ = self.save().await;
                Err(invalid_status(
                    StatusCode::PAYMENT_REQUIRED,
                    format!("The facilitator could not settle the payment: {reason}"),
                ))
            }
            Err(err) => {
                // It may have gone through: the outbox asks again, and records what it hears.
                self.record.error = Some(err.to_string());
                self.record.next_attempt_at = store::now();
                let _ = self.save().await;
                Err(facilitator_down(&err))
            }
        }
    }

    /// What it has come to so far (for `exact` once charged: the settlement).
    pub fn settlement(&self) -> Settlement {
        settlement_of(&self.record)
    }

    /// Whether it is `upto` (settled after the answer, for what it cost).
    pub fn is_upto(&self) -> bool {
        self.upto
    }

    /// After the answer, which cost `consumed` credits and is `usage_id` in the ledger: `upto`
    /// settles that cost (never more than authorized; a facilitator that cannot be reached
    /// leaves it to the outbox), `exact` notes the ledger entry. What it came to.
    pub async fn finish(mut self, charged: Charged) -> Settlement {
        let consumed = charged.credits;
        self.record.usage_id = Some(charged.usage_id);
        self.record.model = Some(charged.model);
        if !self.upto {
            let _ = self.save().await;
            return self.settlement();
        }
        let cost = price::atomic(consumed, &self.credit_price).unwrap_or(self.authorized);
        let amount = cost.min(self.authorized);
        self.record.amount = amount.to_string();
        self.requirements.amount = amount.to_string();
        self.record.requirements = serde_json::to_string(&self.requirements).unwrap_or_default();
        self.record.next_attempt_at = store::now();
        settle(
            &mut self.record,
            &self.payment,
            &self.requirements,
            &self.facilitator,
        )
        .await;
        if let Err(err) = self.save().await {
            err.log("x402: could not record a settlement");
        }
        self.settlement()
    }

    fn settled(&mut self, transaction: String) {
        self.record.status = PaymentStatus::Settled;
        self.record.transaction = (!transaction.is_empty()).then_some(transaction);
        self.record.error = None;
        self.record.settled_at = Some(store::now());
    }

    async fn save(&self) -> Result<(), crate::store::StoreError> {
        self.store.save_payment(self.record.clone()).await
    }
}

/// Settles `record`'s payment for its `amount` and notes the outcome in it: settled, failed
/// (the facilitator refused), expired, or still pending (the facilitator could not be reached;
/// attempts counted, the next one scheduled). An amount of 0 settles without a transaction.
pub async fn settle(
    record: &mut PaymentRecord,
    payment: &PaymentPayload,
    requirements: &Requirements,
    facilitator: &Facilitator,
) {
    record.attempts += 1;
    let now = store::now();
    if record.amount == "0" {
        record.status = PaymentStatus::Settled;
        record.settled_at = Some(now);
        return;
    }
    if record.expires_at <= now {
        record.status = PaymentStatus::Expired;
        record.error = Some("the authorization ran out before it could be settled".into());
        return;
    }
    match facilitator
        .settle(&record.facilitator_url, payment, requirements)
        .await
    {
        Ok(response) if response.success => {
            record.status = PaymentStatus::Settled;
            record.transaction = (!response.transaction.is_empty()).then_some(response.transaction);
            record.error = None;
            record.settled_at = Some(store::now());
        }
        Ok(response) => {
            record.status = PaymentStatus::Failed;
            record.error = Some(response.error_reason.unwrap_or_else(|| "refused".into()));
        }
        Err(err) => {
            record.error = Some(err.to_string());
            let wait = retry_after(record.attempts);
            record.next_attempt_at = now + wait;
        }
    }
}

/// The wait before settlement attempt `attempts + 1`: 5 s, doubling, at most 10 minutes.
fn retry_after(attempts: u32) -> chrono::Duration {
    let seconds = 5u64.saturating_mul(1 << attempts.min(7)).min(600);
    chrono::Duration::seconds(seconds as i64)
}

/// What `record` came to.
pub fn settlement_of(record: &PaymentRecord) -> Settlement {
    Settlement {
        status: match record.status {
            PaymentStatus::Settled => "settled",
            PaymentStatus::Pending => "pending",
            PaymentStatus::Failed | PaymentStatus::Expired => "failed",
        },
        scheme: record.scheme.clone(),
        network: record.network.clone(),
        payer: record.payer.clone(),
        amount: record.amount.clone(),
        transaction: record.transaction.clone(),
        error: record.error.clone(),
    }
}

/// What the workspace offers for one request.
struct Offer {
    required: PaymentRequired,
}

impl Offer {
    fn new(
        settings: &X402Settings,
        worst: U256,
        settler: Option<&str>,
        resource: ResourceInfo,
    ) -> Self {
        let base = |scheme: &str, timeout: u64, extra: serde_json::Value| Requirements {
            scheme: scheme.into(),
            network: settings.network.clone(),
            amount: worst.to_string(),
            asset: settings.asset.clone(),
            pay_to: settings.pay_to.clone(),
            max_timeout_seconds: timeout,
            extra,
        };
        let domain = json!({"name": settings.asset_name, "version": settings.asset_version});
        let mut accepts = Vec::new();
        if let Some(settler) = settler {
            let mut extra = domain.clone();
            extra["assetTransferMethod"] = json!("permit2");
            extra["facilitatorAddress"] = json!(settler);
            accepts.push(base("upto", UPTO_TIMEOUT_SECONDS, extra));
        }
        accepts.push(base("exact", EXACT_TIMEOUT_SECONDS, domain));
        Offer {
            required: PaymentRequired {
                x402_version: 2,
                error: None,
                resource,
                accepts,
            },
        }
    }

    fn get(&self, scheme: &str) -> Option<&Requirements> {
        self.required.accepts.iter().find(|r| r.scheme == scheme)
    }

    /// 402 with the offer, in the header and in OpenAI's envelope, saying `why`.
    fn refuse(&self, code: &'static str, why: &str) -> Response {
        let mut required = self.required.clone();
        required.error = Some(why.to_string());
        let header =
            HeaderValue::from_str(&wire::encode(&required)).unwrap_or(HeaderValue::from_static(""));
        let body = json!({"error": {
            "message": why,
            "type": "invalid_request_error",
            "code": code,
            "param": null,
            "x402": required,
        }});
        let mut response = (StatusCode::PAYMENT_REQUIRED, Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(wire::PAYMENT_REQUIRED, header);
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// A payment that passed the checks made here.
struct Checked {
    requirements: Requirements,
    payer: Address,
    authorized: U256,
    nonce: PaymentNonce,
    expires_at: chrono::DateTime<chrono::Utc>,
}

/// Checks `payment` against `offer` and `wallet`: everything but the payer's balance and
/// allowance, which the facilitator checks.
fn check(
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
            schemes(offer)
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
            "the payment authorizes {authorized} atomic units; this request needs {required} (its worst case)"
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

fn schemes(offer: &Offer) -> String {
    let names: Vec<&str> = offer
        .required
        .accepts
        .iter()
        .map(|r| r.scheme.as_str())
        .collect();
    names.join(", ")
}

/// A v1 network name as CAIP-2 (the two v1 names of Base; others as they are).
fn v1_network(name: &str) -> String {
    match name {
        "base" => "eip155:8453".into(),
        "base-sepolia" => "eip155:84532".into(),
        other => other.to_string(),
    }
}

/// The payment header and its name: v2's `PAYMENT-SIGNATURE`, or v1's `X-PAYMENT`.
fn payment_header(headers: &HeaderMap) -> Option<(&'static str, &str)> {
    [
        ("PAYMENT-SIGNATURE", wire::PAYMENT_SIGNATURE),
        ("X-PAYMENT", wire::X_PAYMENT),
    ]
    .into_iter()
    .find_map(|(shown, name)| Some((shown, headers.get(name)?.to_str().ok()?)))
}

/// The resource paid for: this request's URL, as the client addressed it.
fn resource(headers: &HeaderMap) -> ResourceInfo {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    ResourceInfo {
        url: format!("{scheme}://{host}/v1/chat/completions"),
        description: "A chat completion, paid for what it costs (at most its worst case)".into(),
        mime_type: "application/json".into(),
    }
}

fn refused_by_store(err: crate::store::StoreError) -> Response {
    crate::http::error::ApiError::from(err).into_response()
}

/// 400: the payment header cannot be read.
fn invalid(message: String) -> Response {
    invalid_status(StatusCode::BAD_REQUEST, message)
}

fn invalid_status(status: StatusCode, message: String) -> Response {
    let body = json!({"error": {
        "message": message,
        "type": "invalid_request_error",
        "code": "invalid_payment",
        "param": null,
    }});
    (status, Json(body)).into_response()
}

/// 503: the facilitator cannot be reached; no answer is served unpaid.
fn facilitator_down(err: &Unreachable) -> Response {
    tracing::warn!(error = %err, "x402: the facilitator cannot be reached");
    unavailable(&format!(
        "The payment cannot be checked or settled now: {err}; retry shortly"
    ))
}

fn unavailable(message: &str) -> Response {
    let body = json!({"error": {
        "message": message,
        "type": "api_error",
        "code": "facilitator_unavailable",
        "param": null,
    }});
    let mut response = (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}
