//! `tokctl models`.

use serde::Serialize;
use tokctl_sdk::{Deployment, Model, ModelHealth};

use super::Ctx;
use crate::error::CliError;
use crate::output::{Mark, Row};

/// A model, or in a terminal's table one of its deployments, on a row of its own under it.
#[derive(Serialize)]
#[serde(untagged)]
enum ModelRow {
    Model(Model),
    Deployment(String, Deployment),
}

impl Row for ModelRow {
    fn headers() -> &'static [&'static str] {
        &[
            "MODEL",
            "PROVIDER",
            "PROMPT /1K",
            "COMPLETION /1K",
            "QUALITY",
            "FIRST TOKEN",
            "STATE",
            "ERRORS",
        ]
    }

    fn cells(&self, _: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let m = match self {
            ModelRow::Model(model) => model,
            ModelRow::Deployment(_, d) => {
                let health = &d.health;
                return vec![
                    format!("  - {} (weight {})", d.name, d.weight),
                    d.provider.clone(),
                    format!("{}", d.prompt_price),
                    format!("{}", d.completion_price),
                    String::new(),
                    first_token(health),
                    state(health, chrono::Utc::now()),
                    errors(health),
                ];
            }
        };
        let mut cells = vec![
            m.id.clone(),
            m.provider.clone(),
            format!("{}", m.prompt_price),
            format!("{}", m.completion_price),
            format!("{:.2}", m.quality),
        ];
        match &m.health {
            Some(health) => cells.extend([
                first_token(health),
                state(health, chrono::Utc::now()),
                errors(health),
            ]),
            None => cells.extend([
                format!("{} ms typical", m.latency_ms),
                "-".into(),
                "-".into(),
            ]),
        }
        cells
    }

    fn key(&self) -> &str {
        match self {
            ModelRow::Model(model) => &model.id,
            ModelRow::Deployment(model, _) => model,
        }
    }

    fn mark(&self) -> Mark {
        let health = match self {
            ModelRow::Model(model) => model.health.as_ref(),
            ModelRow::Deployment(_, deployment) => Some(&deployment.health),
        };
        match health.map(|h| h.state.as_str()) {
            Some("open" | "half_open") => Mark::Warn,
            _ => Mark::Normal,
        }
    }
}

/// The time to first token routing uses: observed (with the recent median), or the
/// catalogue's figure.
fn first_token(health: &ModelHealth) -> String {
    match (health.first_token_observed, health.first_token_ms_p50) {
        (true, Some(p50)) => format!(
            "{:.0} ms (p50 {p50:.0}, {} answers)",
            health.first_token_ms, health.samples
        ),
        _ => format!("{:.0} ms typical", health.first_token_ms),
    }
}

/// The circuit's state, with how long an open one has left.
fn state(health: &ModelHealth, now: chrono::DateTime<chrono::Utc>) -> String {
    match (health.state.as_str(), health.open_until) {
        ("open", Some(until)) => {
            let left = (until - now).num_milliseconds().max(0);
            format!("open {} s", (left + 999) / 1000)
        }
        ("half_open", _) => "half-open".into(),
        (state, _) => state.to_string(),
    }
}

/// Failures among the recent requests.
fn errors(health: &ModelHealth) -> String {
    match health.recent_requests {
        0 => "-".into(),
        n => format!(
            "{}/{n} ({:.0} %)",
            health.recent_failures,
            health.error_rate * 100.0
        ),
    }
}

/// Lists the gateway's models.
pub async fn run(ctx: &Ctx) -> Result<(), CliError> {
    let models = ctx.client()?.models().list().await?;
    if !ctx.out.tabular() || ctx.out.quiet() {
        let rows: Vec<ModelRow> = models.into_iter().map(ModelRow::Model).collect();
        return Ok(ctx.out.list(&rows)?);
    }
    // In a table each model's deployments follow it, one row each.
    let mut rows = Vec::with_capacity(models.len());
    for mut model in models {
        let deployments = std::mem::take(&mut model.deployments);
        let id = model.id.clone();
        rows.push(ModelRow::Model(model));
        rows.extend(
            deployments
                .into_iter()
                .map(|d| ModelRow::Deployment(id.clone(), d)),
        );
    }
    Ok(ctx.out.list(&rows)?)
}
