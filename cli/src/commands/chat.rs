//! `tokctl chat`: one answer for a prompt (or piped stdin), or a session on a terminal.

use std::io::{IsTerminal, Read, Write};

use futures::StreamExt;
use tokctl_sdk::{ChatMessage, ChatRequest, Client, Platform};

use super::Ctx;
use crate::cli::ChatArgs;
use crate::error::{CliError, exit};

/// The gateway's words for what `chat` sends, and the flags that set them.
const WORDS: [(&str, &str); 9] = [
    ("budget_limit", "--budget"),
    ("max_tokens", "--max-tokens"),
    ("temperature", "--temperature"),
    ("agent_wallet", "--wallet"),
    ("cost_weight", "--cost-weight"),
    ("quality_weight", "--quality-weight"),
    ("route_strategy", "--cost-weight and --quality-weight"),
    ("GET /v1/models", "`tokctl models`"),
    (
        "the PAYMENT-SIGNATURE header",
        "--wallet-key-file FILE --max-payment UNITS",
    ),
];

/// A gateway error in the CLI's words.
fn in_cli_words(err: tokctl_sdk::Error) -> CliError {
    CliError::from(err).in_cli_words(&WORDS)
}

/// Runs `tokctl chat`.
pub async fn run(ctx: &Ctx, args: ChatArgs) -> Result<(), CliError> {
    let wallet = match (&args.wallet_key_file, args.max_payment) {
        (Some(file), Some(max)) => Some(tokctl_sdk::x402::Wallet::from_key_file(file, max)?),
        _ => None,
    };
    let client = ctx.paying_client(wallet)?;
    let mut prompt = args.prompt.join(" ");
    let stdin_is_terminal = std::io::stdin().is_terminal();
    if !stdin_is_terminal {
        let mut piped = String::new();
        std::io::stdin().read_to_string(&mut piped)?;
        if !piped.trim().is_empty() {
            prompt = if prompt.is_empty() {
                piped
            } else {
                format!("{prompt}\n\n{piped}")
            };
        }
    }
    if prompt.trim().is_empty() {
        if stdin_is_terminal && std::io::stderr().is_terminal() {
            return session(ctx, &client, &args).await;
        }
        return Err(CliError::usage(
            "give a prompt, pipe one on stdin, or run on a terminal for a session",
        ));
    }
    let mut messages: Vec<ChatMessage> = args.system.iter().map(ChatMessage::system).collect();
    messages.push(ChatMessage::user(prompt));
    let request = request(&args, &args.model, messages);
    // Ctrl-C stops the answer (the server stops generating and bills what was sent) and ends
    // the line it was printing, instead of killing the process mid-line.
    let mut text = String::new();
    let finished = {
        let asked = answer(ctx, &client, request, args.stream, &mut text);
        tokio::select! {
            result = asked => Some(result),
            _ = tokio::signal::ctrl_c() => None,
        }
    };
    match finished {
        Some(result) => result,
        None => {
            if !text.is_empty() && !ctx.out.json() {
                ctx.out.line("")?;
            }
            Err(CliError::new("interrupted: the answer above is incomplete")
                .with_code(exit::INTERRUPTED))
        }
    }
}

fn request(args: &ChatArgs, model: &str, messages: Vec<ChatMessage>) -> ChatRequest {
    let mut request = ChatRequest::new(model).messages(messages);
    if let Some(max) = args.max_tokens {
        request = request.max_tokens(max);
    }
    if let Some(temperature) = args.temperature {
        request = request.temperature(temperature);
    }
    if let Some(budget) = args.budget {
        request = request.budget_limit(budget);
    }
    if args.cost_weight.is_some() || args.quality_weight.is_some() {
        request = request.route_strategy(
            args.cost_weight.unwrap_or(0.5),
            args.quality_weight.unwrap_or(0.5),
        );
    }
    if let Some(wallet) = &args.wallet {
        request = request.agent_wallet(wallet);
    }
    request
}

/// Asks once and prints the answer (as it arrives with `stream`), collecting what was printed
/// in `text` (so a caller that stops it knows whether a line was left open).
async fn answer(
    ctx: &Ctx,
    client: &Client,
    request: ChatRequest,
    stream: bool,
    text: &mut String,
) -> Result<(), CliError> {
    if !stream {
        let completion = client.chat().create(&request).await.map_err(in_cli_words)?;
        if ctx.out.json() {
            ctx.out.print_json(&completion)?;
        } else {
            ctx.out.line(completion.text())?;
        }
        footer(ctx, completion.platform.as_ref());
        text.push_str(completion.text());
        return Ok(());
    }
    let mut chunks = client
        .chat()
        .create_stream(&request)
        .await
        .map_err(in_cli_words)?;
    let mut platform = None;
    while let Some(chunk) = chunks.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(err) => {
                if !text.is_empty() && !ctx.out.json() {
                    ctx.out.line("")?;
                }
                return Err(in_cli_words(err));
            }
        };
        if ctx.out.json() {
            ctx.out
                .line(&serde_json::to_string(&chunk).unwrap_or_default())?;
        } else if let Some(piece) = chunk.text() {
            ctx.out.text(piece)?;
        }
        text.push_str(chunk.text().unwrap_or_default());
        platform = platform.or(chunk.platform);
    }
    if !ctx.out.json() {
        ctx.out.line("")?;
    }
    footer(ctx, platform.as_ref());
    Ok(())
}

/// Routed model, credits and savings, and what was paid, on stderr.
fn footer(ctx: &Ctx, platform: Option<&Platform>) {
    if let (false, Some(p)) = (ctx.out.quiet(), platform) {
        eprintln!(
            "— {} · {} · saved {} · {}",
            p.routed_model,
            credits(p.credits_consumed),
            p.cost_saved_credits.normalize(),
            p.route_reason
        );
        if let Some(paid) = &p.settlement {
            let transaction = paid.transaction.as_deref().unwrap_or("no transaction");
            eprintln!(
                "— paid {} units ({}, {}) on {}: {transaction}",
                paid.amount, paid.scheme, paid.status, paid.network
            );
        }
    }
}

/// "1 credit", "0.0102 credits".
pub(crate) fn credits(amount: tokctl_sdk::Decimal) -> String {
    let amount = amount.normalize();
    if amount == tokctl_sdk::Decimal::ONE {
        "1 credit".into()
    } else {
        format!("{amount} credits")
    }
}

/// A conversation on a terminal: every answer streams; Ctrl-C stops an answer, not the session.
async fn session(ctx: &Ctx, client: &Client, args: &ChatArgs) -> Result<(), CliError> {
    let mut model = args.model.clone();
    let mut system = args.system.clone();
    let mut history: Vec<ChatMessage> = Vec::new();
    eprintln!(
        "tokctl chat with {model}: /model NAME, /system TEXT, /reset, /exit. Ctrl-C stops an answer."
    );
    let (tx, mut lines) = tokio::sync::mpsc::channel::<String>(1);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    loop {
        eprint!("> ");
        let _ = std::io::stderr().flush();
        let line = tokio::select! {
            line = lines.recv() => line,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("\n(/exit or Ctrl-D leaves)");
                continue;
            }
        };
        let Some(line) = line else {
            eprintln!();
            return Ok(());
        };
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        match command {
            "" => continue,
            "/exit" | "/quit" => return Ok(()),
            "/reset" => {
                history.clear();
                eprintln!("(conversation cleared)");
                continue;
            }
            "/model" if !rest.trim().is_empty() => {
                model = rest.trim().to_string();
                eprintln!("(model: {model})");
                continue;
            }
            "/system" => {
                system = (!rest.trim().is_empty()).then(|| rest.trim().to_string());
                eprintln!(
                    "(system message {})",
                    if system.is_some() { "set" } else { "cleared" }
                );
                continue;
            }
            _ if command.starts_with('/') => {
                eprintln!("(commands: /model NAME, /system TEXT, /reset, /exit)");
                continue;
            }
            _ => {}
        }
        history.push(ChatMessage::user(line));
        let mut messages: Vec<ChatMessage> = system.iter().map(ChatMessage::system).collect();
        messages.extend(history.iter().cloned());
        let mut text = String::new();
        let asked = answer(
            ctx,
            client,
            request(args, &model, messages),
            true,
            &mut text,
        );
        let finished = tokio::select! {
            result = asked => Some(result),
            _ = tokio::signal::ctrl_c() => None,
        };
        match finished {
            Some(result) => match result {
                Ok(()) => history.push(ChatMessage::assistant(text)),
                Err(err) => {
                    history.pop();
                    eprintln!("tokctl: {err}");
                }
            },
            None => {
                history.pop();
                eprintln!("\n(answer cancelled)");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_credit_is_singular() {
        let amount = |text: &str| text.parse::<tokctl_sdk::Decimal>().unwrap();
        assert_eq!(credits(amount("1")), "1 credit");
        assert_eq!(credits(amount("1.000")), "1 credit");
        assert_eq!(credits(amount("0.0102")), "0.0102 credits");
        assert_eq!(credits(amount("2")), "2 credits");
        assert_eq!(credits(amount("0")), "0 credits");
    }
}
