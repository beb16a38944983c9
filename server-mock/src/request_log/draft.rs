//! A request's entry while it is served ([`Logged`]): filled in as the request goes, its texts
//! kept in one buffer (one allocation, however many fields), and written into its workspace's
//! batch when the last hand on it lets go.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::RequestLog;
use crate::credits::Credits;
use crate::store::{EntryRef, request_batch};

/// A request's entry while it is served; every clone fills the same entry, and the last one
/// dropped writes it (an entry without a workspace, a request no credential authenticated, is
/// not kept: the audit log has denials).
#[derive(Clone)]
pub struct Logged(Arc<Draft>);

struct Draft {
    log: Arc<RequestLog>,
    started: Instant,
    fill: Mutex<Fill>,
}

/// The texts of an entry, each kept in [`Fill::text`].
#[derive(Clone, Copy)]
enum Text {
    Id,
    Workspace,
    Credential,
    Endpoint,
    Model,
    Routed,
    Deployment,
    Reason,
    Error,
    Paid,
    Session,
    RequestBody,
    ResponseBody,
}

/// How many [`Text`]s there are.
const TEXTS: usize = 13;

/// Bytes of text an entry holds, about (ids, names, the endpoint).
const TEXT_BYTES: usize = 192;

/// What is known of the entry so far.
#[derive(Default)]
struct Fill {
    /// Every text set, one after another.
    text: String,
    /// Where in `text` each [`Text`] is, when set.
    at: [Option<(u32, u32)>; TEXTS],
    /// Microseconds since the epoch.
    created_at: i64,
    chosen: bool,
    status: u16,
    stream: bool,
    first_token_us: Option<i64>,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    cached_tokens: Option<u64>,
    credits: Option<Credits>,
    /// Whether bodies are kept: unknown until its workspace is (`Some(Some(cap))`: kept up to
    /// `cap` bytes; `Some(None)`: not kept).
    keep: Option<Option<usize>>,
    /// The request's body, read before its workspace was known: waits, unredacted, in memory
    /// only, and is dropped with the entry if never decided.
    waiting: Option<String>,
}

impl Fill {
    fn set(&mut self, field: Text, value: &str) {
        let start = self.text.len();
        let Ok(end) = u32::try_from(start + value.len()) else {
            // Past 4 GiB of text (bodies are capped far below): left unset.
            return;
        };
        self.text.push_str(value);
        self.at[field as usize] = Some((start as u32, end));
    }

    fn get(&self, field: Text) -> Option<&str> {
        let (start, end) = self.at[field as usize]?;
        self.text.get(start as usize..end as usize)
    }

    fn is_set(&self, field: Text) -> bool {
        self.at[field as usize].is_some()
    }
}

/// What an answer used and cost, for its entry.
pub struct Spent {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    pub credits: Credits,
}

impl Logged {
    /// The entry of a request to `endpoint` with id `id` that arrived `created_at`
    /// (microseconds), `chosen` by its client or not.
    pub(super) fn new(
        log: Arc<RequestLog>,
        id: &str,
        created_at: i64,
        chosen: bool,
        endpoint: &str,
        session: Option<&str>,
    ) -> Logged {
        let mut fill = Fill {
            text: String::with_capacity(TEXT_BYTES),
            created_at,
            chosen,
            ..Fill::default()
        };
        fill.set(Text::Id, id);
        fill.set(Text::Endpoint, endpoint);
        if let Some(session) = session {
            fill.set(Text::Session, session);
        }
        Logged(Arc::new(Draft {
            log,
            started: Instant::now(),
            fill: Mutex::new(fill),
        }))
    }

    fn fill(&self) -> std::sync::MutexGuard<'_, Fill> {
        self.0.fill.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The credential that authenticated it; its workspace's settings decide whether bodies
    /// are kept.
    pub fn caller(&self, workspace_id: &str, credential_id: &str) {
        let log = &self.0.log;
        let keep = log
            .settings
            .store_bodies(workspace_id)
            .then_some(log.body_cap);
        let waiting = {
            let mut fill = self.fill();
            fill.set(Text::Workspace, workspace_id);
            fill.set(Text::Credential, credential_id);
            fill.keep = Some(keep);
            fill.waiting.take()
        };
        if let Some((text, cap)) = waiting.zip(keep) {
            let body = kept(&text, cap);
            self.fill().set(Text::RequestBody, &body);
        }
    }

    /// The most bytes of a body kept, when its workspace keeps bodies.
    fn cap(&self) -> Option<usize> {
        self.fill().keep.flatten()
    }

    /// The model it named, and whether it streams.
    pub fn asked(&self, model: &str, stream: bool) {
        let mut fill = self.fill();
        fill.set(Text::Model, model);
        fill.stream = stream;
    }

    /// The model (and deployment) that answered, why, and what it used and cost.
    pub fn answered_by(&self, model: &str, deployment: Option<&str>, reason: &str, spent: Spent) {
        let mut fill = self.fill();
        fill.set(Text::Routed, model);
        if let Some(deployment) = deployment {
            fill.set(Text::Deployment, deployment);
        }
        fill.set(Text::Reason, reason);
        fill.prompt_tokens = Some(spent.prompt_tokens);
        fill.completion_tokens = Some(spent.completion_tokens);
        fill.cached_tokens = Some(spent.cached_tokens);
        fill.credits = Some(spent.credits);
    }

    /// The request's body (kept redacted and capped, when its workspace keeps bodies).
    pub fn request_body(&self, text: &str) {
        let cap = {
            let mut fill = self.fill();
            match fill.keep {
                Some(keep) => keep,
                None => {
                    // Decided once the caller is known.
                    fill.waiting = Some(text.to_string());
                    None
                }
            }
        };
        if let Some(cap) = cap {
            let body = kept(text, cap);
            self.fill().set(Text::RequestBody, &body);
        }
    }

    /// Whether its workspace keeps bodies (so the answer's is worth making).
    pub fn keeps_bodies(&self) -> bool {
        self.cap().is_some()
    }

    /// The answer's body (kept redacted and capped, when its workspace keeps bodies).
    pub fn response_body(&self, text: &str) {
        if let Some(cap) = self.cap() {
            let body = kept(text, cap);
            self.fill().set(Text::ResponseBody, &body);
        }
    }

    /// A stream's first token came now.
    pub fn first_token(&self) {
        let took = micros(self.0.started.elapsed());
        self.fill().first_token_us = Some(took);
    }

    /// Atomic units an x402 payment settled for it.
    pub fn paid(&self, amount: &str) {
        self.fill().set(Text::Paid, amount);
    }

    /// It failed with `code` (the first failure is kept: a stream cut after its status).
    pub fn failed(&self, code: &str) {
        let mut fill = self.fill();
        if !fill.is_set(Text::Error) {
            fill.set(Text::Error, code);
        }
    }

    /// The status it was answered with (and the error code of a refusal).
    pub fn status(&self, status: u16, error: Option<&str>) {
        let mut fill = self.fill();
        fill.status = status;
        if let Some(code) = error
            && !fill.is_set(Text::Error)
        {
            fill.set(Text::Error, code);
        }
    }
}

/// What is kept of a body: redacted, then cut at `cap` bytes (on a character boundary), the cut
/// said at the end.
fn kept(text: &str, cap: usize) -> String {
    let redacted = tokctl_secrets::redact(text);
    if redacted.len() <= cap {
        return redacted.into_owned();
    }
    let mut end = cap;
    while !redacted.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}…[{} more bytes not kept]",
        &redacted[..end],
        redacted.len() - end
    )
}

fn micros(took: Duration) -> i64 {
    i64::try_from(took.as_micros()).unwrap_or(i64::MAX)
}

impl Drop for Draft {
    fn drop(&mut self) {
        let fill = self.fill.get_mut().unwrap_or_else(|e| e.into_inner());
        let Some(workspace) = fill.get(Text::Workspace) else {
            return;
        };
        let entry = EntryRef {
            id: fill.get(Text::Id).unwrap_or_default(),
            created_at: fill.created_at,
            credential_id: fill.get(Text::Credential),
            endpoint: fill.get(Text::Endpoint).unwrap_or_default(),
            model: fill.get(Text::Model),
            routed_model: fill.get(Text::Routed),
            deployment: fill.get(Text::Deployment),
            route_reason: fill.get(Text::Reason),
            status: fill.status,
            error: fill.get(Text::Error),
            stream: fill.stream,
            first_token_us: fill.first_token_us,
            total_us: micros(self.started.elapsed()),
            prompt_tokens: fill.prompt_tokens,
            completion_tokens: fill.completion_tokens,
            cached_tokens: fill.cached_tokens,
            credits: fill.credits,
            x402_settled: fill.get(Text::Paid),
            session_id: fill.get(Text::Session),
            request_body: fill.get(Text::RequestBody),
            response_body: fill.get(Text::ResponseBody),
            chosen: fill.chosen,
            // Every text at once, in the one buffer that holds them.
            plain: request_batch::plain(fill.text.as_bytes()),
        };
        self.log.push(workspace, &entry);
    }
}
