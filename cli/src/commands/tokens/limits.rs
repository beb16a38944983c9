//! `tokctl tokens limit`, and a token's spend as `tokens show` prints it: spent and remaining of
//! the period, with a bar on a terminal.

use std::io::IsTerminal;

use tokctl_sdk::{ChangeLimits, Client, LimitReset, Token, TokenLimits};

use super::TokenRow;
use crate::cli::LimitArgs;
use crate::commands::Ctx;
use crate::commands::names::{TOKEN, resolve};
use crate::error::CliError;

/// Cells of the bar at full width.
const BAR: usize = 30;

/// Sets, changes or removes a token's limit and prints the token as it now stands.
pub async fn run(ctx: &Ctx, client: &Client, args: LimitArgs) -> Result<(), CliError> {
    let id = resolve(client, TOKEN, &args.token, false).await?;
    let change = match args.remove {
        true => ChangeLimits::remove(),
        false => {
            let mut change = ChangeLimits::new();
            if let Some(amount) = args.credit_limit {
                change = change.credit_limit(amount);
            }
            if let Some(reset) = &args.reset {
                change = change.reset(LimitReset::from(reset.as_str()));
            }
            change
        }
    };
    let token = client
        .tokens()
        .change_limits(&id, &change)
        .await
        .map_err(|err| {
            CliError::from(err).in_cli_words(&[
                ("limit_reset", "--reset"),
                ("credit_limit", "--credit-limit"),
            ])
        })?;
    show(ctx, token)
}

/// Prints a token, and on a terminal or in plain text its period's spend.
pub fn show(ctx: &Ctx, token: Token) -> Result<(), CliError> {
    let limits = token.limits.clone();
    ctx.out.item(&TokenRow(token))?;
    if let Some(limits) = limits.filter(|_| !ctx.out.json() && !ctx.out.quiet()) {
        let bar = std::io::stdout().is_terminal();
        for line in lines(&limits, bar) {
            ctx.out.line(&line)?;
        }
    }
    Ok(())
}

/// The limit in words (`25 credits a month`), the spend against it, and when it resets.
pub fn lines(limits: &TokenLimits, bar: bool) -> Vec<String> {
    let per = match limits.reset {
        LimitReset::Daily => "a day",
        LimitReset::Weekly => "a week",
        LimitReset::Monthly => "a month",
        LimitReset::Never => "in all",
        _ => "a period",
    };
    let limit = limits.credit_limit.normalize();
    let spent = limits.spent.normalize();
    let mut spend = format!(
        "spent      {spent} of {limit} credits {per} ({}%), {} remaining",
        percent(limits),
        limits.remaining.normalize()
    );
    if !limits.reserved.is_zero() {
        spend.push_str(&format!(", {} reserved", limits.reserved.normalize()));
    }
    let mut out = vec![format!("limit      {limit} credits {per}"), spend];
    if bar {
        out.push(format!("           {}", bar_of(limits, BAR)));
    }
    if let Some(at) = limits.resets_at {
        out.push(format!(
            "resets     {}",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ));
    }
    out
}

/// The spend's share of the limit in whole percent, rounded down (100 only when reached).
fn percent(limits: &TokenLimits) -> u32 {
    if limits.credit_limit.is_zero() {
        return 0;
    }
    let share = limits.spent * tokctl_sdk::Decimal::ONE_HUNDRED / limits.credit_limit;
    u32::try_from(share.floor().mantissa())
        .unwrap_or(100)
        .min(100)
}

/// `████████░░░░` with the spend filled in and the reservations shaded.
fn bar_of(limits: &TokenLimits, width: usize) -> String {
    let cells = |amount: tokctl_sdk::Decimal| -> usize {
        if limits.credit_limit.is_zero() {
            return 0;
        }
        let share = amount * tokctl_sdk::Decimal::from(width) / limits.credit_limit;
        usize::try_from(share.floor().mantissa())
            .unwrap_or(width)
            .min(width)
    };
    let spent = cells(limits.spent);
    let reserved = cells(limits.spent + limits.reserved).saturating_sub(spent);
    let rest = width - spent - reserved;
    format!(
        "{}{}{}",
        "█".repeat(spent),
        "▒".repeat(reserved),
        "░".repeat(rest)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(spent: &str) -> TokenLimits {
        serde_json::from_value(serde_json::json!({
            "credit_limit": 25, "reset": "monthly", "period_start": "2026-11-01T00:00:00Z",
            "resets_at": "2026-12-01T00:00:00Z", "spent": spent.parse::<f64>().unwrap(),
            "reserved": 0, "remaining": 25.0 - spent.parse::<f64>().unwrap()
        }))
        .unwrap()
    }

    #[test]
    fn the_bar_and_the_words_say_the_same_spend() {
        let lines = lines(&limits("20"), true);
        assert_eq!(lines[0], "limit      25 credits a month");
        assert_eq!(
            lines[1],
            "spent      20 of 25 credits a month (80%), 5 remaining"
        );
        assert_eq!(
            lines[2],
            format!("           {}{}", "█".repeat(24), "░".repeat(6))
        );
        assert_eq!(lines[3], "resets     2026-12-01T00:00:00Z");
        assert!(
            !super::lines(&limits("20"), false)
                .iter()
                .any(|l| l.contains('█'))
        );
        assert_eq!(
            percent(&limits("24.99")),
            99,
            "rounded down: 100 only when reached"
        );
    }
}
