//! `POST /v1/tokens/:id/rotate`: a new secret, and (opt-in) an overlap during which the secret
//! it replaces still works. The rules are docs/api.md's "Tokens".

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use regex::Regex;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{TokenIdParam, TokenView, change_refused, entry, limits};
use crate::auth::{Authenticated, require};
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{OptionalJson, TokenId};
use crate::last_used::LastUsed;
use crate::secrets::{CredentialKind, new_secret};
use crate::store::{Store, actions};
use crate::webhooks::Hub;

/// The longest overlap a rotation may ask for.
pub const MAX_OVERLAP: Duration = Duration::from_secs(24 * 3600);

/// An overlap as the document writes it and the server reads it: `0`, or whole hours, minutes
/// and seconds in that order, each with its unit (`90s`, `10m`, `2h`, `1h30m`).
pub const OVERLAP_PATTERN: &str = concat!(
    r"^(?:0|(?P<h>[0-9]{1,5})h(?:(?P<hm>[0-9]{1,7})m)?(?:(?P<hms>[0-9]{1,9})s)?",
    r"|(?P<m>[0-9]{1,7})m(?:(?P<ms>[0-9]{1,9})s)?|(?P<s>[0-9]{1,9})s)$"
);

static OVERLAP: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(OVERLAP_PATTERN).ok());

/// Body of a rotation (optional; JSON `null` is none).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(example = json!({"previous_secret_expires_in": "10m"}))]
pub struct RotateToken {
    /// How long the replaced secret keeps working: a duration such as `90s`, `10m`, `2h` or
    /// `1h30m`, at most 24 hours. Absent, null, `0` or `"0"`: it stops at once.
    #[serde(default)]
    #[schema(schema_with = overlap_schema)]
    pub previous_secret_expires_in: Option<Value>,
}

/// The schema of `previous_secret_expires_in`: a string of [`OVERLAP_PATTERN`], the number 0,
/// or null (at most 24 hours is said in words: a pattern cannot add the parts up).
fn overlap_schema() -> utoipa::openapi::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
    let schema = OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some(OVERLAP_PATTERN)))
        .item(ObjectBuilder::new().schema_type(Type::Integer).enum_values(Some([0])))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some("How long the replaced secret keeps working, at most 24 hours: `90s`, `10m`, `2h`, `1h30m`; `0`, `\"0\"` or null: it stops at once"))
        .build();
    Schema::OneOf(schema)
}

/// The overlap asked for: `None` for none.
pub fn overlap(raw: Option<&Value>) -> Result<Option<Duration>> {
    let invalid = || {
        ApiError::Unprocessable(
            "previous_secret_expires_in must be a duration such as 10m or 2h, at most 24h (or 0 for none)"
                .into(),
        )
    };
    let text = match raw {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => return Ok(None),
        Some(Value::String(text)) => text,
        Some(_) => return Err(invalid()),
    };
    let parts = OVERLAP
        .as_ref()
        .and_then(|grammar| grammar.captures(text))
        .ok_or_else(invalid)?;
    let part = |name: &str, unit: u64| {
        parts
            .name(name)
            .and_then(|digits| digits.as_str().parse::<u64>().ok())
            .map_or(0, |n| n * unit)
    };
    let seconds = [
        ("h", 3600),
        ("hm", 60),
        ("hms", 1),
        ("m", 60),
        ("ms", 1),
        ("s", 1),
    ]
    .into_iter()
    .map(|(name, unit)| part(name, unit))
    .sum::<u64>();
    match Duration::from_secs(seconds) {
        zero if zero.is_zero() => Ok(None),
        length if length <= MAX_OVERLAP => Ok(Some(length)),
        _ => Err(invalid()),
    }
}

/// Replace an active token's secret. Without an overlap the old secret stops at once; with
/// `previous_secret_expires_in` it keeps working until then (at most 24 h), and a later
/// rotation ends that overlap.
#[utoipa::path(post, path = "/v1/tokens/{id}/rotate", tag = "tokens", operation_id = "rotate_token",
    params(TokenIdParam), request_body(content = Option<RotateToken>,
        description = "Optional: an overlap for the replaced secret"),
    responses((status = 200, description = "The token with its new secret", body = TokenView),
        (status = 400, description = "A body was sent that is not JSON", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "Unknown, revoked, or in another workspace", body = ErrorBody),
        (status = 409, description = "The token has expired", body = ErrorBody),
        (status = 422, description = "previous_secret_expires_in is not a duration of at most 24 h", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn rotate(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    State(hub): State<Arc<Hub>>,
    auth: Authenticated<require::TokensRotate>,
    TokenId(id): TokenId,
    OptionalJson(body): OptionalJson<RotateToken>,
) -> Result<Json<TokenView>> {
    let overlap = overlap(body.unwrap_or_default().previous_secret_expires_in.as_ref())?;
    let secret = new_secret(CredentialKind::Token);
    let mut audit = entry(&auth, actions::TOKEN_ROTATED, &id);
    let now = audit.created_at;
    let previous_until = overlap
        .and_then(|length| chrono::Duration::from_std(length).ok())
        .map(|length| now + length);
    let stops = timestamp(previous_until.unwrap_or(now));
    if previous_until.is_some() {
        audit.details = Some(json!({"previous_secret_expires_at": stops}).to_string());
    }
    let workspace_id = &auth.principal.workspace_id;
    let data = json!({"id": id, "previous_secret_expires_at": stops});
    let event = crate::webhooks::event(workspace_id, "token.rotated", data);
    let rotated = store
        .rotate_token(
            workspace_id,
            &id,
            secret.digest(),
            previous_until,
            audit,
            event,
        )
        .await;
    hub.wake.notify_one();
    let record = rotated.map_err(|err| change_refused(&id, err))?;
    let spend = limits::spend_of(store.as_ref(), [&record]).await?;
    Ok(Json(TokenView::new(
        &last_used,
        record,
        Some(&secret),
        spend.get(&id),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_are_durations_up_to_a_day_and_zero_is_none() {
        let of = |value: Value| overlap(Some(&value));
        assert_eq!(of(json!("10m")).unwrap(), Some(Duration::from_secs(600)));
        assert_eq!(of(json!("1h30m")).unwrap(), Some(Duration::from_secs(5400)));
        assert_eq!(of(json!("24h")).unwrap(), Some(MAX_OVERLAP));
        for none in [json!(0), json!("0"), json!("0s"), Value::Null] {
            assert_eq!(of(none).unwrap(), None);
        }
        for bad in [
            json!("24h1s"),
            json!("2d"),
            json!("soon"),
            json!(600),
            json!(true),
            json!("-5m"),
            json!(" 10m"),
            json!("10 minutes"),
            json!("30m1h"),
        ] {
            assert!(of(bad.clone()).is_err(), "{bad}");
        }
        assert_eq!(of(json!(0.0)).unwrap(), None);
        assert_eq!(overlap(None).unwrap(), None);
    }

    proptest::proptest! {
        /// Every string the document's pattern allows is read, refused only past 24 hours.
        #[test]
        fn the_documented_pattern_is_what_is_read(
            text in proptest::string::string_regex(OVERLAP_PATTERN.trim_start_matches('^').trim_end_matches('$')).unwrap()
        ) {
            let read = overlap(Some(&json!(text)));
            let parts: Vec<u64> = text.split(|c: char| c.is_ascii_alphabetic()).filter_map(|n| n.parse().ok()).collect();
            let units: Vec<char> = text.chars().filter(char::is_ascii_alphabetic).collect();
            let seconds: u64 = parts.iter().zip(units.iter()).map(|(n, unit)| n * match unit { 'h' => 3600, 'm' => 60, _ => 1 }).sum();
            proptest::prop_assert_eq!(read.is_ok(), seconds <= 24 * 3600, "{}", text);
        }
    }
}
