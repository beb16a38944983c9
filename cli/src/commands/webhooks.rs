//! `tokctl webhooks`: endpoint configuration, a local receiver, and a signature check.

use std::io::{IsTerminal, Read};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::Serialize;
use tokctl_sdk::webhooks::{CreateWebhook, DeliveryAttempt, WebhookEndpoint, verify, verify_event};

use super::Ctx;
use crate::cli::WebhooksCommand;
use crate::error::CliError;
use crate::output::{Output, Row};

#[derive(Serialize)]
#[serde(transparent)]
struct EndpointRow(WebhookEndpoint);

impl Row for EndpointRow {
    fn headers() -> &'static [&'static str] {
        &["ID", "URL", "EVENTS", "STATUS", "CREATED"]
    }

    fn cells(&self, time: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let e = &self.0;
        vec![
            e.id.clone(),
            e.url.clone(),
            e.events.join(","),
            e.status.clone(),
            time(Some(e.created_at)),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }
}

#[derive(Serialize)]
#[serde(transparent)]
struct AttemptRow(DeliveryAttempt);

impl Row for AttemptRow {
    fn headers() -> &'static [&'static str] {
        &[
            "TIME",
            "EVENT",
            "TYPE",
            "ATTEMPT",
            "RESULT",
            "MS",
            "NEXT RETRY",
        ]
    }

    fn cells(&self, time: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let a = &self.0;
        let result = match (a.status_code, &a.error) {
            (Some(status), _) => status.to_string(),
            (None, Some(error)) => error.clone(),
            (None, None) => "-".into(),
        };
        vec![
            time(Some(a.created_at)),
            a.event_id.clone(),
            a.event_type.clone(),
            a.attempt.to_string(),
            result,
            a.duration_ms.to_string(),
            time(a.next_retry_at),
        ]
    }

    fn key(&self) -> &str {
        &self.0.event_id
    }
}

/// Runs a webhooks subcommand.
pub async fn run(ctx: &Ctx, command: WebhooksCommand) -> Result<(), CliError> {
    match command {
        WebhooksCommand::Listen {
            port,
            secret,
            forward_to,
        } => return listen(ctx, port, secret.0, forward_to).await,
        WebhooksCommand::Verify { secret, signature } => {
            let mut body = Vec::new();
            std::io::stdin().read_to_end(&mut body)?;
            return match verify(secret.0.as_bytes(), &body, &signature) {
                Ok(()) => {
                    eprintln!("signature matches");
                    Ok(())
                }
                Err(err) => Err(CliError::new(format!("signature refused: {err}"))),
            };
        }
        _ => {}
    }
    let client = ctx.client()?;
    let webhooks = client.webhooks();
    match command {
        WebhooksCommand::Create { url, events } => {
            let request = events
                .into_iter()
                .fold(CreateWebhook::new(url), CreateWebhook::event);
            let endpoint = webhooks.create(&request).await?;
            let secret = endpoint
                .secret
                .as_ref()
                .map(|s| s.expose().to_string())
                .unwrap_or_default();
            if ctx.out.quiet() {
                ctx.out.line(&secret)?;
            } else if ctx.out.json() {
                ctx.out.print_json(&endpoint)?;
            } else {
                ctx.out.item(&EndpointRow(endpoint))?;
                ctx.out.line(&format!("secret   {secret}"))?;
            }
            ctx.note("Store the signing secret now: it is not shown again.");
            Ok(())
        }
        WebhooksCommand::List => {
            use futures::TryStreamExt;
            let rows: Vec<EndpointRow> = webhooks
                .list_all()
                .map_ok(EndpointRow)
                .try_collect()
                .await?;
            Ok(ctx.out.list(&rows)?)
        }
        WebhooksCommand::Get { id } => Ok(ctx.out.item(&EndpointRow(webhooks.get(&id).await?))?),
        WebhooksCommand::Delete { id } => {
            webhooks.delete(&id).await?;
            ctx.note(&format!("Deleted {id}."));
            Ok(())
        }
        WebhooksCommand::Test { id } => {
            let event = webhooks.test(&id).await?;
            ctx.out.line(&event)?;
            ctx.note(&format!("Queued webhook.test event {event}."));
            Ok(())
        }
        WebhooksCommand::Deliveries { id } => {
            let rows: Vec<AttemptRow> = webhooks
                .deliveries(&id)
                .await?
                .data
                .into_iter()
                .map(AttemptRow)
                .collect();
            Ok(ctx.out.list(&rows)?)
        }
        WebhooksCommand::Listen { .. } | WebhooksCommand::Verify { .. } => Ok(()),
    }
}

/// How long a forwarded request may take.
const FORWARD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

struct Listener {
    secret: String,
    forward_to: Option<String>,
    http: reqwest::Client,
    pretty: bool,
    json: bool,
    /// Told when stdout has been closed: the user stopped listening.
    stop: tokio::sync::Notify,
}

/// Serves until Ctrl-C, or until stdout is closed (`tokctl webhooks listen | head -1`).
async fn listen(
    ctx: &Ctx,
    port: u16,
    secret: String,
    forward_to: Option<String>,
) -> Result<(), CliError> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|err| CliError::new(format!("cannot listen on 127.0.0.1:{port}: {err}")))?;
    let addr = listener.local_addr()?;
    let http = reqwest::Client::builder()
        .timeout(FORWARD_TIMEOUT)
        .build()
        .map_err(|err| CliError::new(format!("cannot forward: {}", err.without_url())))?;
    let state = Arc::new(Listener {
        secret,
        forward_to,
        http,
        pretty: std::io::stdout().is_terminal() && !ctx.out.json(),
        json: ctx.out.json(),
        stop: tokio::sync::Notify::new(),
    });
    let app = axum::Router::new()
        .fallback(receive)
        .with_state(state.clone());
    eprintln!("listening on http://{addr} (Ctrl-C to stop)");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = state.stop.notified() => {}
            }
        })
        .await
        .map_err(|err| CliError::new(err.to_string()))
}

/// What `listen` prints after an event's type and id on a terminal.
fn detail(event: &tokctl_sdk::webhooks::Event) -> String {
    match &event.kind {
        tokctl_sdk::webhooks::EventKind::TokenRotated {
            token_id,
            previous_secret_expires_at,
        } => match previous_secret_expires_at {
            Some(at) if *at > event.created_at => format!(
                "{token_id} (old secret works until {})",
                at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
            _ => token_id.clone(),
        },
        tokctl_sdk::webhooks::EventKind::TokenExpiring {
            token_id, notice, ..
        } => format!("{token_id} ({notice} notice)"),
        tokctl_sdk::webhooks::EventKind::TokenLimitThreshold(notice)
        | tokctl_sdk::webhooks::EventKind::TokenLimitReached(notice) => format!(
            "{} {}% of {} credits (spent {}{})",
            notice.token_id,
            notice.threshold,
            notice.credit_limit.normalize(),
            notice.spent.normalize(),
            if notice.refused {
                ", a request refused"
            } else {
                ""
            }
        ),
        tokctl_sdk::webhooks::EventKind::WebhookTest { endpoint_id } => endpoint_id.clone(),
        _ => String::new(),
    }
}

async fn receive(
    State(listener): State<Arc<Listener>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let event = match verify_event(listener.secret.as_bytes(), &headers, &body, None) {
        Ok(event) => event,
        Err(err) => {
            eprintln!("rejected a delivery: {err}");
            return StatusCode::UNAUTHORIZED;
        }
    };
    let out = Output::plain();
    let printed = if listener.pretty && !listener.json {
        let detail = detail(&event);
        out.line(&format!(
            "{}  {}  {}  {detail}",
            event.created_at.format("%H:%M:%S"),
            event.kind_str(),
            event.id
        ))
    } else {
        out.line(&String::from_utf8_lossy(&body))
    };
    match printed {
        Ok(()) => {}
        // Whoever read our output has gone: the user stopped listening. The event was
        // received, so it is acknowledged rather than left to be retried for a day.
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
            listener.stop.notify_one();
            return StatusCode::OK;
        }
        Err(err) => {
            eprintln!("could not print {}: {err}", event.id);
            return StatusCode::INTERNAL_SERVER_ERROR;
        }
    }
    if let Some(url) = &listener.forward_to {
        forward(&listener.http, url, &event.id, &headers, body).await;
    }
    StatusCode::OK
}

/// POSTs a verified event, with its headers, to `url`; a failure is reported on stderr and
/// does not change the answer to the sender.
async fn forward(
    http: &reqwest::Client,
    url: &str,
    event_id: &str,
    headers: &HeaderMap,
    body: Bytes,
) {
    let mut request = http.post(url).body(body);
    for name in [
        "content-type",
        "x-service-signature",
        "x-service-event-id",
        "x-service-timestamp",
    ] {
        if let Some(value) = headers.get(name) {
            request = request.header(name, value.as_bytes());
        }
    }
    match request.send().await {
        Ok(response) if response.status().is_success() => {}
        Ok(response) => eprintln!(
            "forwarded {event_id}: {url} answered {}",
            response.status().as_u16()
        ),
        Err(err) if err.is_timeout() => eprintln!(
            "could not forward {event_id}: {url} did not answer within {} s",
            FORWARD_TIMEOUT.as_secs()
        ),
        Err(err) => eprintln!("could not forward {event_id}: {}", err.without_url()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(body: &str) -> tokctl_sdk::webhooks::Event {
        tokctl_sdk::webhooks::Event::parse(body.as_bytes()).unwrap()
    }

    #[test]
    fn a_terminal_line_says_what_each_limit_and_rotation_event_means() {
        let reached = parsed(
            r#"{"id":"evt_1","type":"token.limit_reached","created_at":"2026-11-26T10:00:00Z","data":{"id":"tok_1","name":"bot","period_start":"2026-11-26T00:00:00Z","credit_limit":25,"spent":24.5,"threshold":100,"refused":true}}"#,
        );
        assert_eq!(
            detail(&reached),
            "tok_1 100% of 25 credits (spent 24.5, a request refused)"
        );
        let threshold = parsed(
            r#"{"id":"evt_2","type":"token.limit_threshold","created_at":"2026-11-26T10:00:00Z","data":{"id":"tok_1","name":"bot","period_start":"2026-11-26T00:00:00Z","credit_limit":25,"spent":20,"threshold":80}}"#,
        );
        assert_eq!(detail(&threshold), "tok_1 80% of 25 credits (spent 20)");
        let rotated = parsed(
            r#"{"id":"evt_3","type":"token.rotated","created_at":"2026-11-26T10:00:00Z","data":{"id":"tok_1","previous_secret_expires_at":"2026-11-26T10:10:00Z"}}"#,
        );
        assert_eq!(
            detail(&rotated),
            "tok_1 (old secret works until 2026-11-26T10:10:00Z)"
        );
    }
}
