//! A token's spending limit on the wire: the fields that set it (`POST /v1/tokens`,
//! `PATCH /v1/tokens/:id`), the `limits` object a token shows, and the change handler. The rules
//! are docs/api.md's "Spending limits"; storage keeps them exact (`store/limits.rs`).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::extract::State;
use regex::Regex;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{TokenIdParam, TokenView, change_refused, entry};
use crate::auth::{Authenticated, require};
use crate::credits::Credits;
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{ApiJson, TokenId};
use crate::last_used::LastUsed;
use crate::store::{self, Limit, LimitChange, Reset, Spend, Store, TokenRecord, actions};

/// The largest `credit_limit`, in credits.
pub const MAX_LIMIT_CREDITS: u64 = 1_000_000_000;

/// A token's limit and its current period, as `limits` shows them.
#[derive(Debug, Serialize, ToSchema)]
pub struct LimitsView {
    /// Credits the token may spend in a period (exact).
    #[schema(value_type = f64)]
    pub credit_limit: Credits,
    /// `daily`, `weekly`, `monthly` (UTC calendar periods) or `never`.
    #[schema(value_type = ResetName)]
    pub reset: &'static str,
    /// When the current period started (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub period_start: String,
    /// When the next period starts; absent for `never`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub resets_at: Option<String>,
    /// Charged in the current period.
    #[schema(value_type = f64)]
    pub spent: Credits,
    /// Held by requests still being answered.
    #[schema(value_type = f64)]
    pub reserved: Credits,
    /// What new requests may still reserve: the limit minus `spent` and `reserved`, never
    /// below 0.
    #[schema(value_type = f64)]
    pub remaining: Credits,
}

impl From<&Spend> for LimitsView {
    fn from(spend: &Spend) -> Self {
        LimitsView {
            credit_limit: spend.limit.credit_limit,
            reset: spend.limit.reset.as_str(),
            period_start: timestamp(spend.period.start),
            resets_at: spend.period.resets_at.map(timestamp),
            spent: spend.spent,
            reserved: spend.reserved,
            remaining: spend.remaining(),
        }
    }
}

/// When a limit's period starts again.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ResetName {
    Daily,
    Weekly,
    Monthly,
    Never,
}

/// Body of `PATCH /v1/tokens/:id`: only these two fields, each optional (the document's exact
/// shape is [`describe`]'s).
#[derive(ToSchema)]
#[schema(example = json!({"credit_limit": 25, "limit_reset": "monthly"}))]
pub struct ChangeLimits {
    /// Credits per period, more than 0, at most 9 decimal places (a number, or a decimal
    /// string); `null` removes the limit.
    #[schema(value_type = Option<f64>)]
    pub credit_limit: Option<f64>,
    #[schema(value_type = Option<ResetName>)]
    pub limit_reset: Option<String>,
}

/// `credit_limit` written as a string: a decimal of at most 9 places, more than 0 and at most
/// [`MAX_LIMIT_CREDITS`], without leading zeros or signs. The server checks strings with this
/// very pattern, and the document publishes it.
pub static CREDIT_STRING_PATTERN: LazyLock<String> = LazyLock::new(|| {
    // Below 1: the first digit that is not 0 at each of the 9 places.
    let fractions: Vec<String> = (0..9)
        .map(|zeros| format!("0{{{zeros}}}[1-9][0-9]{{0,{}}}", 8 - zeros))
        .collect();
    format!(
        r"^(?:[1-9][0-9]{{0,8}}(?:\.[0-9]{{1,9}})?|0\.(?:{})|1000000000(?:\.0{{1,9}})?)$",
        fractions.join("|")
    )
});

static CREDIT_STRING: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&CREDIT_STRING_PATTERN).ok());

/// `credit_limit` as sent: a number or a decimal string ([`CREDIT_STRING_PATTERN`]), exact, from
/// a nano-credit to [`MAX_LIMIT_CREDITS`]; `null` is `None`.
pub fn credit_limit(raw: &RawValue) -> Result<Option<Credits>> {
    let text = raw.get();
    if text == "null" {
        return Ok(None);
    }
    let number = match serde_json::from_str::<String>(text) {
        Ok(string) => Some(string).filter(|s| {
            CREDIT_STRING
                .as_ref()
                .is_some_and(|grammar| grammar.is_match(s))
        }),
        Err(_) => Some(text.to_string()),
    };
    let most = Credits::from_nanos(MAX_LIMIT_CREDITS * 1_000_000_000);
    number
        .and_then(|number| Credits::parse_exact(&number))
        .filter(|amount| (Credits::from_nanos(1)..=most).contains(amount))
        .map(Some)
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "credit_limit must be a number of credits from 0.000000001 to {MAX_LIMIT_CREDITS}, with at most 9 decimal places"
            ))
        })
}

/// What annotations cannot say of the limit fields, added to `document`: `credit_limit`'s two
/// forms and bounds; on `POST /v1/tokens`, `limit_reset` (not null) only with a `credit_limit`
/// (not null); on `PATCH /v1/tokens/:id`, only these two fields, at least one, and
/// `limit_reset` never null (`credit_limit: null` is what removes a limit).
pub fn describe(document: &mut Value) {
    let credit_limit = json!({
        "description": "Credits per period, exact: a number or a decimal string, more than 0, at most 1,000,000,000, at most 9 decimal places; null for none",
        "anyOf": [
            {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_LIMIT_CREDITS, "multipleOf": 1e-9},
            {"type": "string", "pattern": *CREDIT_STRING_PATTERN},
            {"type": "null"}
        ]
    });
    let schemas = &mut document["components"]["schemas"];
    let create = &mut schemas["CreateToken"];
    create["properties"]["credit_limit"] = credit_limit.clone();
    create["if"] =
        json!({"required": ["limit_reset"], "properties": {"limit_reset": {"type": "string"}}});
    create["then"] = json!({"required": ["credit_limit"], "properties": {"credit_limit": {"not": {"type": "null"}}}});
    let change = &mut schemas["ChangeLimits"];
    change["properties"]["credit_limit"] = credit_limit;
    change["properties"]["limit_reset"] = json!({"$ref": "#/components/schemas/ResetName"});
    change["additionalProperties"] = json!(false);
    change["minProperties"] = json!(1);
}

/// `limit_reset` as sent: one of the period names.
pub fn limit_reset(raw: &RawValue) -> Result<Reset> {
    serde_json::from_str::<String>(raw.get())
        .ok()
        .and_then(|name| Reset::parse(&name))
        .ok_or_else(|| {
            ApiError::Unprocessable(
                "limit_reset must be one of daily, weekly, monthly, never".into(),
            )
        })
}

/// The limit a new token asks for, set now: none without `credit_limit`; `limit_reset` alone
/// is refused; the period defaults to `never`.
pub fn new_limit(
    credit: Option<&RawValue>,
    reset: Option<&RawValue>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<Limit>> {
    let credit_limit = credit.map(credit_limit).transpose()?.flatten();
    let reset = reset
        .filter(|raw| raw.get() != "null")
        .map(limit_reset)
        .transpose()?;
    match (credit_limit, reset) {
        (None, Some(_)) => Err(ApiError::Unprocessable(
            "limit_reset needs a credit_limit".into(),
        )),
        (None, None) => Ok(None),
        (Some(credit_limit), reset) => Ok(Some(Limit {
            credit_limit,
            reset: reset.unwrap_or(Reset::Never),
            since: now,
        })),
    }
}

/// The current period's spend of those of these tokens that have a limit, by id: one read for
/// all of them, none when no token has a limit.
pub async fn spend_of<'a>(
    store: &dyn Store,
    tokens: impl IntoIterator<Item = &'a TokenRecord>,
) -> Result<HashMap<String, Spend>> {
    let limits: Vec<(String, Limit)> = tokens
        .into_iter()
        .filter_map(|token| Some((token.id.clone(), token.limit?)))
        .collect();
    if limits.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(store.spend(limits, store::now()).await?)
}

/// Change a token's spending limit (and only that).
#[utoipa::path(patch, path = "/v1/tokens/{id}", tag = "tokens", operation_id = "update_token",
    params(TokenIdParam), request_body = ChangeLimits,
    responses((status = 200, description = "The token with its limits", body = TokenView),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "Unknown, revoked, or in another workspace", body = ErrorBody),
        (status = 409, description = "The token has expired; or limit_reset without a credit_limit for a token that has no limit", body = ErrorBody),
        (status = 422, description = "A field that cannot change, or a value out of bounds (the message names it)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn update(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::TokensWrite>,
    TokenId(id): TokenId,
    ApiJson(body): ApiJson<HashMap<String, Box<RawValue>>>,
) -> Result<Json<TokenView>> {
    let mut change = LimitChange::default();
    let mut fields: Vec<&String> = body.keys().collect();
    fields.sort();
    for field in fields {
        let raw = &body[field];
        match field.as_str() {
            "credit_limit" => change.credit_limit = Some(credit_limit(raw)?),
            "limit_reset" => change.reset = Some(limit_reset(raw)?),
            other => {
                return Err(ApiError::Unprocessable(format!(
                    "{} cannot change: only credit_limit and limit_reset can (create a new token for other changes)",
                    crate::http::error::truncate(other, 64)
                )));
            }
        }
    }
    if change.credit_limit.is_none() && change.reset.is_none() {
        return Err(ApiError::Unprocessable(
            "Send credit_limit, limit_reset or both".into(),
        ));
    }
    let audit = entry(&auth, actions::TOKEN_LIMIT_CHANGED, &id);
    let workspace_id = &auth.principal.workspace_id;
    let token = store
        .change_limit(workspace_id, &id, change, audit)
        .await
        .map_err(|err| change_refused(&id, err))?;
    let spend = spend_of(store.as_ref(), [&token]).await?;
    Ok(Json(TokenView::new(
        &last_used,
        token,
        None,
        spend.get(&id),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Option<Credits>> {
        credit_limit(&RawValue::from_string(json.to_string()).unwrap())
    }

    #[test]
    fn a_limit_is_a_number_or_a_decimal_string_from_a_nano_credit_to_a_billion() {
        for (json, nanos) in [
            ("25", 25_000_000_000),
            ("\"2.25\"", 2_250_000_000),
            ("0.000000001", 1),
            ("\"0.000000001\"", 1),
            ("1e-9", 1),
            ("\"1000000000.000\"", 1_000_000_000_000_000_000),
        ] {
            assert_eq!(
                read(json).unwrap(),
                Some(Credits::from_nanos(nanos)),
                "{json}"
            );
        }
        assert_eq!(read("null").unwrap(), None);
        for json in [
            "0",
            "\"0\"",
            "\"0.0\"",
            "-1",
            "\"01\"",
            "\" 1\"",
            "\"1e3\"",
            "1.0000000001",
            "1000000000.5",
            "\"1000000001\"",
            "true",
            "{}",
        ] {
            assert!(read(json).is_err(), "{json}");
        }
    }

    proptest::proptest! {
        /// Every string the document's pattern allows is a limit the server takes.
        #[test]
        fn the_documented_string_pattern_is_what_is_read(
            text in proptest::string::string_regex(
                CREDIT_STRING_PATTERN.trim_start_matches('^').trim_end_matches('$')
            ).unwrap()
        ) {
            let json = serde_json::to_string(&text).unwrap();
            proptest::prop_assert!(read(&json).is_ok(), "{}", text);
        }
    }
}
