//! `tokctl usage [--token TOKEN]`: ledger totals by day and model, and a bar chart by day on a
//! terminal.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use serde::Serialize;
use tokctl_sdk::{Decimal, UsageTotals};

use super::Ctx;
use super::names::{TOKEN, resolve};
use crate::cli::UsageArgs;
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct UsageRow(UsageTotals);

impl Row for UsageRow {
    fn headers() -> &'static [&'static str] {
        &[
            "DATE",
            "MODEL",
            "REQUESTS",
            "PROMPT TOKENS",
            "COMPLETION TOKENS",
            "CREDITS",
        ]
    }

    fn cells(&self, _: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let u = &self.0;
        vec![
            u.date.clone().unwrap_or_else(|| "total".into()),
            u.model.clone().unwrap_or_else(|| "-".into()),
            u.requests.to_string(),
            u.prompt_tokens.to_string(),
            u.completion_tokens.to_string(),
            u.credits.normalize().to_string(),
        ]
    }

    fn key(&self) -> &str {
        self.0.date.as_deref().unwrap_or("total")
    }
}

/// Shows the whole ledger (every page of it), or the part one token made.
pub async fn run(ctx: &Ctx, args: UsageArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let usage = match &args.token {
        Some(token) => client
            .usage()
            .token(resolve(&client, TOKEN, token, true).await?),
        None => client.usage(),
    };
    let report = usage.all().await?;
    if ctx.out.json() {
        return Ok(ctx.out.print_json(&report)?);
    }
    let mut by_day: BTreeMap<String, Decimal> = BTreeMap::new();
    for row in &report.data {
        *by_day
            .entry(row.date.clone().unwrap_or_default())
            .or_default() += row.credits;
    }
    let mut rows: Vec<UsageRow> = report.data.into_iter().map(UsageRow).collect();
    rows.push(UsageRow(report.totals));
    ctx.out.list(&rows)?;
    if std::io::stdout().is_terminal() && !ctx.out.quiet() && !by_day.is_empty() {
        ctx.out.line("")?;
        for line in chart(&by_day, 40) {
            ctx.out.line(&line)?;
        }
    }
    Ok(())
}

/// One bar a day, the largest `width` cells wide; each day's exact total beside it.
fn chart(by_day: &BTreeMap<String, Decimal>, width: usize) -> Vec<String> {
    let max = by_day.values().copied().max().unwrap_or_default();
    by_day
        .iter()
        .map(|(day, credits)| {
            // Bar lengths only: a float is fine here, the amount is printed exactly.
            let share = match (f64::try_from(*credits), f64::try_from(max)) {
                (Ok(credits), Ok(max)) if max > 0.0 => credits / max,
                _ => 0.0,
            };
            let cells = (share * width as f64).round() as usize;
            let total = credits.normalize();
            format!("{day}  {:<width$}  {total}", "█".repeat(cells.max(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_day() {
        let days = BTreeMap::from([
            ("2026-11-21".to_string(), Decimal::new(1, 0)),
            ("2026-11-22".to_string(), Decimal::new(40_000_000_001, 10)),
        ]);
        let lines = chart(&days, 8);
        assert!(lines[0].starts_with("2026-11-21  ██      "));
        assert!(lines[1].starts_with("2026-11-22  ████████"));
        assert!(lines[1].ends_with("  4.0000000001"), "exact: {}", lines[1]);
    }
}
