//! x402: agents pay for chat completions over HTTP 402, with the `exact` (EIP-3009) and `upto`
//! (Permit2) schemes, checked here and at the workspace's facilitator, settled by the
//! facilitator. This file is the workspace's terms: `GET`, `PUT` and `DELETE /v1/x402`. The
//! gateway asks [`gate`] whether a request is paid.

mod check;
pub mod eip712;
pub mod facilitator;
pub mod gate;
mod offer;
pub mod outbox;
pub mod payment;
pub mod price;
pub mod wire;

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{ApiJson, IgnoredBody};
use crate::http::routes::Routes;
use crate::store::{self, AuditEntry, Store, X402Settings, actions};
use crate::validate;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new()
        .get("/v1/x402", show)
        .put("/v1/x402", set)
        .delete("/v1/x402", disable)
}

/// Body of `PUT /v1/x402`: the workspace's x402 terms. Unknown fields are ignored.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    "asset_name": "USDC", "asset_version": "2", "asset_decimals": 6, "credit_price": "10000",
    "facilitator_url": "https://x402.org/facilitator"}))]
pub struct SetX402 {
    /// The address agents pay.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub pay_to: String,
    /// CAIP-2 network of the token, e.g. `eip155:84532` (Base Sepolia).
    #[schema(pattern = "^eip155:[1-9][0-9]{0,18}$")]
    pub network: String,
    /// The token contract (EIP-3009 for `exact`; any ERC-20 with a Permit2 allowance for `upto`).
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub asset: String,
    /// The token's EIP-712 domain name, as the contract has it (`USDC`, `USD Coin`): 1 to 100
    /// characters, no control characters.
    #[schema(schema_with = validate::text_schema)]
    pub asset_name: String,
    /// The token's EIP-712 domain version (`2` for USDC), as `asset_name`.
    #[schema(schema_with = validate::text_schema)]
    pub asset_version: String,
    /// The token's decimals (6 for USDC), for showing amounts: a whole number from 0 to 36
    /// (`6.0` is 6).
    #[serde(deserialize_with = "whole_number")]
    #[schema(minimum = 0, maximum = 36)]
    pub asset_decimals: u8,
    /// What one credit costs, in the token's atomic units (a whole number, as a string):
    /// `"10000"` with 6 decimals is 0.01 token a credit. Amounts are rounded up to a whole unit.
    #[schema(pattern = "^[1-9][0-9]{0,59}$")]
    pub credit_price: String,
    /// The facilitator that verifies and settles (its `/verify`, `/settle` and `/supported`):
    /// http or https, a DNS name or IPv4 address, an optional port and path.
    #[schema(schema_with = validate::facilitator_url_schema)]
    pub facilitator_url: String,
}

/// A JSON number that is a whole number from 0 to 255, written as an integer or not (`6.0`: JSON
/// Schema's `integer` is any number without a fraction).
fn whole_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<u8, D::Error> {
    let number = serde_json::Number::deserialize(deserializer)?;
    number
        .as_u64()
        .or_else(|| {
            number
                .as_f64()
                .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= 255.0)
                .map(|n| n as u64)
        })
        .and_then(|n| u8::try_from(n).ok())
        .ok_or_else(|| {
            serde::de::Error::custom("asset_decimals must be a whole number from 0 to 36")
        })
}

/// The workspace's x402 terms as the API shows them.
#[derive(Debug, Serialize, ToSchema)]
pub struct X402View {
    /// Whether the workspace takes x402 payments; the other fields only when it does.
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pay_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset_decimals: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credit_price: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facilitator_url: Option<String>,
    /// RFC 3339, UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

impl From<Option<X402Settings>> for X402View {
    fn from(settings: Option<X402Settings>) -> Self {
        let Some(s) = settings else {
            return X402View {
                enabled: false,
                pay_to: None,
                network: None,
                asset: None,
                asset_name: None,
                asset_version: None,
                asset_decimals: None,
                credit_price: None,
                facilitator_url: None,
                updated_at: None,
            };
        };
        X402View {
            enabled: true,
            pay_to: Some(s.pay_to),
            network: Some(s.network),
            asset: Some(s.asset),
            asset_name: Some(s.asset_name),
            asset_version: Some(s.asset_version),
            asset_decimals: Some(s.asset_decimals),
            credit_price: Some(s.credit_price),
            facilitator_url: Some(s.facilitator_url),
            updated_at: Some(timestamp(s.updated_at)),
        }
    }
}

/// The workspace's x402 terms (`enabled: false` when it takes no x402 payments).
#[utoipa::path(get, path = "/v1/x402", tag = "x402", operation_id = "show_x402",
    responses((status = 200, body = X402View),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::X402Read>,
) -> Result<Json<X402View>> {
    let settings = store.x402_settings(&auth.principal.workspace_id).await?;
    Ok(Json(settings.into()))
}

/// Set the workspace's x402 terms: chat requests naming an `agent_wallet` are then answered
/// 402 until they carry a payment. Audited as `x402.updated`.
#[utoipa::path(put, path = "/v1/x402", tag = "x402", operation_id = "set_x402",
    request_body = SetX402,
    responses((status = 200, body = X402View),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "A value out of bounds (the message names the field)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn set(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::X402Write>,
    ApiJson(body): ApiJson<SetX402>,
) -> Result<Json<X402View>> {
    let settings = check(body)?;
    let audit = AuditEntry::new(
        &auth.principal.workspace_id,
        actions::X402_UPDATED,
        &auth.principal.credential_id,
    )
    .request(auth.request_id.clone());
    store
        .set_x402_settings(&auth.principal.workspace_id, Some(settings.clone()), audit)
        .await?;
    Ok(Json(Some(settings).into()))
}

/// Stop taking x402 payments: requests naming an `agent_wallet` are served as before x402
/// (the wallet recorded, nothing settled). Payments still to settle are settled. Audited as
/// `x402.disabled`; 404 when x402 was not enabled.
#[utoipa::path(delete, path = "/v1/x402", tag = "x402", operation_id = "disable_x402",
    responses((status = 204, description = "x402 is off"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "x402 was not enabled", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn disable(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::X402Write>,
    _body: IgnoredBody,
) -> Result<StatusCode> {
    let workspace = &auth.principal.workspace_id;
    if store.x402_settings(workspace).await?.is_none() {
        return Err(ApiError::NotFound(
            "x402 is not enabled for this workspace".into(),
        ));
    }
    let audit = AuditEntry::new(
        workspace,
        actions::X402_DISABLED,
        &auth.principal.credential_id,
    )
    .request(auth.request_id.clone());
    store.set_x402_settings(workspace, None, audit).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `body`'s terms, each field checked (422 naming the first that is not right).
fn check(body: SetX402) -> Result<X402Settings> {
    // Each value as the document's pattern has it: no trimming.
    let pay_to = validate::address("pay_to", &body.pay_to)?;
    validate::network(&body.network)?;
    let asset = validate::address("asset", &body.asset)?;
    validate::text(
        "asset_name",
        &body.asset_name,
        "the token's EIP-712 domain name",
    )?;
    validate::text(
        "asset_version",
        &body.asset_version,
        "the token's EIP-712 domain version",
    )?;
    if body.asset_decimals > 36 {
        return Err(ApiError::Unprocessable(
            "asset_decimals must be 0 to 36".into(),
        ));
    }
    validate::atomic("credit_price", &body.credit_price)?;
    validate::facilitator_url(&body.facilitator_url)?;
    Ok(X402Settings {
        pay_to,
        network: body.network,
        asset,
        asset_name: body.asset_name,
        asset_version: body.asset_version,
        asset_decimals: body.asset_decimals,
        credit_price: body.credit_price,
        facilitator_url: body.facilitator_url.trim_end_matches('/').to_string(),
        updated_at: store::now(),
    })
}
