//! What an answer cost and where it is recorded: the `platform` object a chat completion shows,
//! and the accounting that settles an answer in the ledger (credits never past the budget, the
//! saving against the best model, the per-model metrics).

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::Gateway;
use super::answer::Tokens;
use super::catalogue::Model;
use super::funds::Reserved;
use crate::credits::Credits;
use crate::request_log::{Logged, Spent};
use crate::store::{self, UsageRecord};
use crate::usage::Recorded;
use crate::x402::payment::{Charged, Settlement};

/// `platform`: how the request was routed and what it cost, and (for an x402 payment) what
/// was settled.
#[derive(Debug, Clone, Serialize)]
pub struct Platform {
    pub routed_model: String,
    pub route_reason: String,
    pub credits_consumed: Credits,
    pub cost_saved_credits: Credits,
    /// The provider's own finish reason, when chat completions has no word for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_finish_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settlement: Option<Settlement>,
    /// The ledger entry's id (not shown).
    #[serde(skip)]
    pub usage_id: String,
}

impl Platform {
    /// What the answer was billed, for its payment.
    pub fn charged(&self) -> Charged {
        Charged {
            credits: self.credits_consumed,
            usage_id: self.usage_id.clone(),
            model: self.routed_model.clone(),
        }
    }
}

/// Everything known once a model has answered (or stopped).
pub(crate) struct Accounting {
    pub gateway: Arc<Gateway>,
    pub workspace_id: String,
    pub request_id: Option<String>,
    pub wallet: Option<String>,
    /// The token that made the request (`None` for an API key or a dashboard session).
    pub token_id: Option<String>,
    /// The most it is charged: `budget_limit`, or a limited token's reservation.
    pub budget: Option<Credits>,
    /// A limited token's reservation, charged with the ledger record.
    pub reservation: Reserved,
    pub model: Arc<Model>,
    pub reason: String,
    /// When the request arrived (while metrics are on).
    pub arrived: Option<Instant>,
    /// Its entry in the request log (while the log is on), kept open while this lives: a
    /// stream's entry is written when its relay ends.
    pub logged: Option<Logged>,
    /// Where the request's spans go (while traces are on), kept open while this lives: a
    /// stream's server span ends when its relay does.
    pub traced: Option<crate::telemetry::Traced>,
}

impl Accounting {
    /// Records the completion in the ledger and returns its `platform` object, and what
    /// resolves once the record is written. Credits never exceed the budget.
    pub fn settle(&self, tokens: &Tokens) -> (Platform, Recorded) {
        let (prompt, completion) = (tokens.prompt, tokens.completion);
        let cost = self.model.charge(tokens);
        let consumed = self.budget.map_or(cost, |budget| cost.min(budget));
        let reference = self
            .gateway
            .catalogue
            .best()
            .map_or(cost, |best| best.charge(tokens));
        let usage_id = crate::secrets::new_id("use_");
        let record = UsageRecord {
            id: usage_id.clone(),
            workspace_id: self.workspace_id.clone(),
            request_id: self.request_id.clone(),
            model: self.model.id.clone(),
            prompt_tokens: prompt,
            completion_tokens: completion,
            credits: consumed,
            wallet: self.wallet.clone(),
            token_id: self.token_id.clone(),
            created_at: store::now(),
            deployment: self.model.deployment.clone(),
        };
        let recorded = match &self.reservation {
            Some(reservation) => reservation.charge(&self.gateway.ledger, record),
            None => self.gateway.ledger.record(record),
        };
        if let Some(traced) = &self.traced {
            traced.set(|a| super::spans::settled(&self.model, &self.reason, consumed, a));
        }
        if let Some(logged) = &self.logged {
            let spent = Spent {
                prompt_tokens: prompt,
                completion_tokens: completion,
                cached_tokens: tokens.cache_read,
                credits: consumed,
            };
            let deployment = self.model.deployment.as_deref();
            logged.answered_by(&self.model.id, deployment, &self.reason, spent);
        }
        let platform = Platform {
            routed_model: self.model.id.clone(),
            route_reason: self.reason.clone(),
            credits_consumed: consumed,
            cost_saved_credits: reference.saturating_sub(consumed),
            upstream_finish_reason: None,
            settlement: None,
            usage_id,
        };
        if let Some(arrived) = self.arrived
            && let Some(metrics) = self.gateway.health.metrics(&self.model)
        {
            let credits = (consumed.nanos(), platform.cost_saved_credits.nanos());
            let written = tokens.cache_write.saturating_add(tokens.cache_write_1h);
            let counts = (prompt, completion, tokens.cache_read, written);
            metrics.answered(arrived.elapsed(), counts, credits);
        }
        (platform, recorded)
    }
}
