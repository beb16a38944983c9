//! `tokctl models`.

use serde::Serialize;
use tokctl_sdk::Model;

use super::Ctx;
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct ModelRow(Model);

impl Row for ModelRow {
    fn headers() -> &'static [&'static str] {
        &[
            "MODEL",
            "PROVIDER",
            "PROMPT /1K",
            "COMPLETION /1K",
            "QUALITY",
            "LATENCY",
        ]
    }

    fn cells(&self, _: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let m = &self.0;
        vec![
            m.id.clone(),
            m.provider.clone(),
            format!("{}", m.prompt_price),
            format!("{}", m.completion_price),
            format!("{:.2}", m.quality),
            format!("{} ms", m.latency_ms),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }
}

/// Lists the gateway's models.
pub async fn run(ctx: &Ctx) -> Result<(), CliError> {
    let models = ctx.client()?.models().list().await?;
    let rows: Vec<ModelRow> = models.into_iter().map(ModelRow).collect();
    Ok(ctx.out.list(&rows)?)
}
