//! `tokctl x402`: the workspace's x402 terms, shown, set and removed.

use serde::Serialize;
use tokctl_sdk::{PaymentToken, SetX402, X402Terms};

use super::{Ctx, confirm};
use crate::cli::{SetX402Args, X402Command};
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct TermsRow(X402Terms);

impl Row for TermsRow {
    fn headers() -> &'static [&'static str] {
        &[
            "ENABLED",
            "PAY TO",
            "NETWORK",
            "ASSET",
            "ASSET NAME",
            "ASSET VERSION",
            "DECIMALS",
            "CREDIT PRICE",
            "FACILITATOR",
            "UPDATED",
        ]
    }

    fn cells(&self, time: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let t = &self.0;
        let text = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
        vec![
            if t.enabled { "yes" } else { "no" }.into(),
            text(&t.pay_to),
            text(&t.network),
            text(&t.asset),
            text(&t.asset_name),
            text(&t.asset_version),
            t.asset_decimals.map_or("-".into(), |d| d.to_string()),
            t.credit_price
                .as_ref()
                .map_or("-".into(), |price| format!("{price} units a credit")),
            text(&t.facilitator_url),
            time(t.updated_at),
        ]
    }

    fn key(&self) -> &str {
        if self.0.enabled {
            "enabled"
        } else {
            "disabled"
        }
    }
}

pub async fn run(ctx: &Ctx, command: X402Command) -> Result<(), CliError> {
    let client = ctx.client()?;
    match command {
        X402Command::Show => {
            let terms = client.x402().get().await?;
            if !terms.enabled && !ctx.out.json() && !ctx.out.quiet() {
                return Ok(ctx
                    .out
                    .line("x402 is off: this workspace takes no x402 payments (`tokctl x402 set` turns it on)")?);
            }
            Ok(ctx.out.item(&TermsRow(terms))?)
        }
        X402Command::Set(args) => {
            let terms = client.x402().set(&terms(args)).await?;
            Ok(ctx.out.item(&TermsRow(terms))?)
        }
        X402Command::Disable { yes } => {
            confirm(yes, || {
                "Stop taking x402 payments (requests naming an agent_wallet are then served unpaid)?"
                    .to_string()
            })?;
            match client.x402().disable().await {
                Ok(()) => {}
                Err(err) if err.is_not_found() => {
                    return Err(CliError::new("x402 is not on for this workspace")
                        .with_code(crate::error::exit::NOT_FOUND));
                }
                Err(err) => return Err(err.into()),
            }
            if !ctx.out.quiet() {
                ctx.out.line("x402 is off")?;
            }
            Ok(())
        }
    }
}

fn terms(args: SetX402Args) -> SetX402 {
    let token = PaymentToken::new(
        args.asset,
        args.asset_name,
        args.asset_version,
        args.decimals,
    );
    SetX402::new(
        args.pay_to,
        args.network,
        token,
        args.credit_price,
        args.facilitator,
    )
}
