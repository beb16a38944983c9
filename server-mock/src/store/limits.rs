//! The `SpendLimits` part of storage: a token's credit limit over a calendar period, the
//! reservations that keep its spend under the limit, and the notices sent as the spend fills it.
//! The rules are docs/api.md's "Spending limits".

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use serde_json::json;

use super::{AuditEntry, NewEvent, StoreResult, TokenRecord, UsageRecord};
use crate::credits::Credits;
use crate::format::timestamp;

/// How long a reservation is counted unless extended: its request extends it every quarter of
/// this while it lives, so one whose instance died is released within it.
pub const HOLD_LIFE: Duration = Duration::hours(1);

/// [`HOLD_LIFE`], or what a test set (`clock::TEST_HOLD_LIFE`).
pub fn hold_life() -> Duration {
    crate::clock::hold_life().unwrap_or(HOLD_LIFE)
}

/// The marks that send an event, in percent of the limit.
pub const THRESHOLDS: [u8; 3] = [80, 95, 100];

/// When a limit's period starts again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reset {
    Daily,
    Weekly,
    Monthly,
    Never,
}

impl Reset {
    /// Every value, as the API lists them.
    pub const ALL: [Reset; 4] = [Reset::Daily, Reset::Weekly, Reset::Monthly, Reset::Never];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reset::Daily => "daily",
            Reset::Weekly => "weekly",
            Reset::Monthly => "monthly",
            Reset::Never => "never",
        }
    }

    /// The value with this wire name.
    pub fn parse(name: &str) -> Option<Reset> {
        Reset::ALL.into_iter().find(|reset| reset.as_str() == name)
    }

    /// The period of this kind that holds `now`; `since` is where a `never` period starts.
    pub fn period(self, since: DateTime<Utc>, now: DateTime<Utc>) -> Period {
        let day = now.date_naive();
        let (start, next) = match self {
            Reset::Never => {
                return Period {
                    start: since,
                    resets_at: None,
                };
            }
            Reset::Daily => (day, day.succ_opt()),
            Reset::Weekly => {
                let monday = day - Duration::days(i64::from(day.weekday().num_days_from_monday()));
                (monday, monday.checked_add_signed(Duration::days(7)))
            }
            Reset::Monthly => {
                let first = day.with_day(1).unwrap_or(day);
                let next = match first.month() {
                    12 => NaiveDate::from_ymd_opt(first.year() + 1, 1, 1),
                    month => NaiveDate::from_ymd_opt(first.year(), month + 1, 1),
                };
                (first, next)
            }
        };
        let midnight = |date: NaiveDate| Utc.from_utc_datetime(&date.and_time(Default::default()));
        Period {
            start: midnight(start),
            resets_at: next.map(midnight),
        }
    }
}

/// One period of a limit: from `start` until `resets_at` (`None`: it never resets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: DateTime<Utc>,
    pub resets_at: Option<DateTime<Utc>>,
}

/// A token's limit as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub credit_limit: Credits,
    pub reset: Reset,
    /// When the limit was set to `reset` (where a `never` period starts).
    pub since: DateTime<Utc>,
}

impl Limit {
    /// The period that holds `now`.
    pub fn period(&self, now: DateTime<Utc>) -> Period {
        self.reset.period(self.since, now)
    }
}

/// A change to a token's limit, as `PATCH /v1/tokens/:id` asks it: each part `None` when left as
/// it is; `credit_limit: Some(None)` removes the limit.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitChange {
    pub credit_limit: Option<Option<Credits>>,
    pub reset: Option<Reset>,
}

impl LimitChange {
    /// The limit after the change, made at `now`: `Err` with a message when it asks for a
    /// period without a limit. A period set anew starts now for `never`; changing only the
    /// amount keeps the period where it was.
    pub fn apply(
        &self,
        before: Option<Limit>,
        now: DateTime<Utc>,
    ) -> Result<Option<Limit>, String> {
        let credit_limit = match self.credit_limit {
            Some(amount) => amount,
            None => before.map(|limit| limit.credit_limit),
        };
        let Some(credit_limit) = credit_limit else {
            return match self.reset {
                Some(_) if self.credit_limit.is_none() => {
                    Err("limit_reset needs a credit_limit: the token has none, so set both".into())
                }
                _ => Ok(None),
            };
        };
        let reset = self
            .reset
            .or(before.map(|limit| limit.reset))
            .unwrap_or(Reset::Never);
        let since = match before {
            Some(limit) if limit.reset == reset => limit.since,
            _ => now,
        };
        Ok(Some(Limit {
            credit_limit,
            reset,
            since,
        }))
    }
}

/// A limit and what its current period holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spend {
    pub limit: Limit,
    pub period: Period,
    /// Charged in the period (what the ledger holds for the token since its start).
    pub spent: Credits,
    /// Held by requests still being answered.
    pub reserved: Credits,
}

impl Spend {
    /// What is left for new requests.
    pub fn remaining(&self) -> Credits {
        self.limit.credit_limit.saturating_sub(Credits::from_nanos(
            self.spent.nanos().saturating_add(self.reserved.nanos()),
        ))
    }

    /// Whether a request that may cost `worst` is admitted.
    pub fn fits(&self, worst: Credits) -> bool {
        worst <= self.remaining()
    }

    /// The marks (in percent) the spend has reached.
    pub fn thresholds_reached(&self) -> impl Iterator<Item = u8> + '_ {
        let (spent, limit) = (
            u128::from(self.spent.nanos()),
            u128::from(self.limit.credit_limit.nanos()),
        );
        THRESHOLDS
            .into_iter()
            .filter(move |mark| spent * 100 >= limit * u128::from(*mark))
    }
}

/// A reservation to make: the first of `amounts` that fits held for `token_id` until charged,
/// released or `expires_at`; the hold `replaces` (of the same request) dropped in the same
/// transaction, so what it held counts for the new one.
#[derive(Debug, Clone)]
pub struct Hold {
    pub id: String,
    pub token_id: String,
    /// What the request may cost, in order of preference (one per candidate model).
    pub amounts: Vec<Credits>,
    pub replaces: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

impl Hold {
    /// A reservation of the first of `amounts` that fits, for `token_id`, made now.
    pub fn new(token_id: &str, amounts: Vec<Credits>) -> Hold {
        let created_at = super::now();
        Hold {
            id: crate::secrets::new_id("hld_"),
            token_id: token_id.to_string(),
            amounts,
            replaces: None,
            created_at,
            expires_at: created_at + hold_life(),
        }
    }

    /// The same, taking the place of the request's hold `id`.
    pub fn replacing(mut self, id: &str) -> Hold {
        self.replaces = Some(id.to_string());
        self
    }

    /// What `spend` leaves room for: the first amount that fits, and its place, or `None`.
    pub fn pick(&self, spend: &Spend) -> Option<(usize, Credits)> {
        let at = self.amounts.iter().position(|amount| spend.fits(*amount))?;
        Some((at, self.amounts[at]))
    }
}

/// What asking for a reservation found.
#[derive(Debug, Clone)]
pub enum Reserved {
    /// The token has no limit (now): nothing is held.
    Unlimited,
    /// `amounts[choice]` is held; `left` is what the period left before it.
    Held { choice: usize, left: Credits },
    /// None of the amounts fits what the period leaves.
    Refused(Spend),
}

/// The audit entry's details of a change from `before` to `after`.
pub fn change_details(before: Option<Limit>, after: Option<Limit>) -> String {
    let side = |limit: Option<Limit>| match limit {
        Some(limit) => json!({
            "credit_limit": limit.credit_limit.to_json(),
            "limit_reset": limit.reset.as_str(),
        }),
        None => json!({"credit_limit": null, "limit_reset": null}),
    };
    json!({"before": side(before), "after": side(after)}).to_string()
}

/// The event a token's spend sends at `threshold` percent of its limit (`refused`: a refused
/// request hit the wall before the spend did). Never the secret.
pub fn notice(
    workspace_id: &str,
    token_id: &str,
    name: &str,
    spend: &Spend,
    threshold: u8,
    refused: bool,
) -> NewEvent {
    let mut data = json!({
        "id": token_id,
        "name": name,
        "period_start": timestamp(spend.period.start),
        "credit_limit": spend.limit.credit_limit.to_json(),
        "spent": spend.spent.to_json(),
        "threshold": threshold,
    });
    let kind = if threshold >= 100 {
        data["refused"] = json!(refused);
        "token.limit_reached"
    } else {
        "token.limit_threshold"
    };
    NewEvent::new(workspace_id, kind, data)
}

/// Token limits, their reservations and notices. Every change of a limit writes its audit entry
/// in the same transaction; a charge or a refusal queues the notices it causes in its own.
#[async_trait]
pub trait SpendLimits: Send + Sync + 'static {
    /// What the period of each of these limits that holds `now` has spent and reserved, by
    /// token id (the limits as the tokens' records hold them: read with the token, so a token
    /// without one costs no read here).
    async fn spend(
        &self,
        limits: Vec<(String, Limit)>,
        now: DateTime<Utc>,
    ) -> StoreResult<HashMap<String, Spend>>;

    /// Changes the limit of a token that is neither revoked
    /// ([`StoreError::NotFound`](super::StoreError::NotFound)) nor expired
    /// ([`StoreError::Expired`](super::StoreError::Expired)); `audit` gets the change's details.
    /// [`StoreError::Invalid`](super::StoreError::Invalid) when the change asks for a period
    /// without a limit. Returns the token.
    async fn change_limit(
        &self,
        workspace_id: &str,
        id: &str,
        change: LimitChange,
        audit: AuditEntry,
    ) -> StoreResult<TokenRecord>;

    /// Holds the first of `hold.amounts` that fits the token's period (once `hold.replaces` is
    /// dropped), atomically with every other reservation and charge of the token on every
    /// instance. A refusal queues `token.limit_reached` once per period.
    async fn reserve(&self, workspace_id: &str, hold: Hold) -> StoreResult<Reserved>;

    /// Counts the reservation `hold_id` until `expires_at` (its request still lives); nothing
    /// when it was charged or released.
    async fn extend(&self, hold_id: &str, expires_at: DateTime<Utc>) -> StoreResult<()>;

    /// Writes `record` to the ledger and drops the reservation `hold_id` in one transaction,
    /// queueing the notices the new spend reaches (once per token and period).
    async fn charge(&self, hold_id: &str, record: UsageRecord) -> StoreResult<()>;

    /// Drops the reservation `hold_id` (nothing was charged).
    async fn release(&self, hold_id: &str) -> StoreResult<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn period(reset: Reset, now: &str) -> (String, Option<String>) {
        let p = reset.period(at("2020-01-01T00:00:00Z"), at(now));
        (timestamp(p.start), p.resets_at.map(timestamp))
    }

    #[test]
    fn periods_follow_the_utc_calendar() {
        let day = period(Reset::Daily, "2026-11-26T23:59:59.999999Z");
        assert_eq!(day.0, "2026-11-26T00:00:00Z");
        assert_eq!(day.1.as_deref(), Some("2026-11-27T00:00:00Z"));
        // 2026-11-26 is a Thursday; weeks start on Monday.
        let week = period(Reset::Weekly, "2026-11-26T12:00:00Z");
        assert_eq!(week.0, "2026-11-23T00:00:00Z");
        assert_eq!(week.1.as_deref(), Some("2026-11-30T00:00:00Z"));
        let monday = period(Reset::Weekly, "2026-11-30T00:00:00Z");
        assert_eq!(monday.0, "2026-11-30T00:00:00Z");
        let december = period(Reset::Monthly, "2026-12-31T23:00:00Z");
        assert_eq!(december.0, "2026-12-01T00:00:00Z");
        assert_eq!(december.1.as_deref(), Some("2027-01-01T00:00:00Z"));
        let february = period(Reset::Monthly, "2028-02-29T10:00:00Z");
        assert_eq!(february.0, "2028-02-01T00:00:00Z");
        assert_eq!(february.1.as_deref(), Some("2028-03-01T00:00:00Z"));
        let never = period(Reset::Never, "2026-11-26T12:00:00Z");
        assert_eq!(never, ("2020-01-01T00:00:00Z".to_string(), None));
    }

    #[test]
    fn a_new_period_starts_now_only_for_never_and_only_when_the_period_changes() {
        let now = at("2026-11-26T12:00:00Z");
        let before = Limit {
            credit_limit: Credits::from_nanos(5),
            reset: Reset::Never,
            since: at("2026-01-01T00:00:00Z"),
        };
        let amount = LimitChange {
            credit_limit: Some(Some(Credits::from_nanos(9))),
            reset: None,
        };
        let after = amount.apply(Some(before), now).unwrap().unwrap();
        assert_eq!((after.credit_limit.nanos(), after.since), (9, before.since));
        let monthly = LimitChange {
            credit_limit: None,
            reset: Some(Reset::Monthly),
        };
        let after = monthly.apply(Some(before), now).unwrap().unwrap();
        assert_eq!((after.reset, after.since), (Reset::Monthly, now));
        let removed = LimitChange {
            credit_limit: Some(None),
            reset: None,
        };
        assert_eq!(removed.apply(Some(before), now), Ok(None));
        assert!(monthly.apply(None, now).is_err());
    }

    #[test]
    fn thresholds_are_reached_exactly() {
        let spend = |spent| Spend {
            limit: Limit {
                credit_limit: Credits::from_nanos(1000),
                reset: Reset::Never,
                since: at("2026-01-01T00:00:00Z"),
            },
            period: Reset::Never.period(at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z")),
            spent: Credits::from_nanos(spent),
            reserved: Credits::ZERO,
        };
        let marks = |spent| spend(spent).thresholds_reached().collect::<Vec<_>>();
        assert_eq!(marks(799), Vec::<u8>::new());
        assert_eq!(marks(800), vec![80]);
        assert_eq!(marks(950), vec![80, 95]);
        assert_eq!(marks(999), vec![80, 95]);
        assert_eq!(marks(1000), vec![80, 95, 100]);
        assert!(spend(990).fits(Credits::from_nanos(10)));
        assert!(!spend(990).fits(Credits::from_nanos(11)));
    }
}
