//! `tokctl scopes`.

use serde::Serialize;
use tokctl_sdk::ScopeInfo;

use super::Ctx;
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct ScopeRow(ScopeInfo);

impl Row for ScopeRow {
    fn headers() -> &'static [&'static str] {
        &["SCOPE", "DESCRIPTION"]
    }

    fn cells(&self, _: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        vec![self.0.name.clone(), self.0.description.clone()]
    }

    fn key(&self) -> &str {
        &self.0.name
    }
}

/// Lists every scope.
pub async fn run(ctx: &Ctx) -> Result<(), CliError> {
    let scopes = ctx.client()?.scopes().list().await?;
    let rows: Vec<ScopeRow> = scopes.into_iter().map(ScopeRow).collect();
    Ok(ctx.out.list(&rows)?)
}
