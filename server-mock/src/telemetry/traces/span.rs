//! A request's spans: its server span, the one span of its authentication and admission, and a
//! client span per upstream attempt. Each is recorded straight into what is exported (a
//! [`Record`]: its attributes already OTLP-encoded), and encoded onto the batcher's batch where
//! it ends, on the thread that ends it; a span of a trace not sampled records nothing and only
//! carries its ids on.

use std::sync::{Arc, Mutex, PoisonError};

use axum::http::header::{HeaderName, HeaderValue};

use super::Inner;
use super::attributes::Attributes;
use super::context::Ids;

/// The name of a request's span of authentication and admission.
pub const ADMISSION: &str = "admission";

/// What is recorded of a span while it is open (its ids are the [`Open`]'s), encoded as it
/// ends.
pub(super) struct Record {
    /// The parent span's id, and whether it is the caller's (remote); none for a root.
    pub parent: Option<([u8; 8], bool)>,
    pub name: Arc<str>,
    pub kind: Kind,
    /// Unix time in nanoseconds.
    pub start: u64,
    pub end: u64,
    pub attributes: Attributes,
    /// Moments (`gen_ai.first_token`), each at its Unix time in nanoseconds.
    pub events: Vec<(u64, &'static str)>,
    /// Status ERROR, with its description; none: unset.
    pub error: Option<String>,
}

/// A span's kind, as OTLP numbers it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    Internal = 1,
    Server = 2,
    Client = 3,
}

/// Unix time in nanoseconds (0 before 1970).
fn now() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
    let (secs, nanos) = (u64::try_from(now.tv_sec), u64::try_from(now.tv_nsec));
    match (secs, nanos) {
        (Ok(secs), Ok(nanos)) => secs.saturating_mul(1_000_000_000).saturating_add(nanos),
        _ => 0,
    }
}

/// A span being recorded: it ends, stamped and handed to the batcher, when dropped.
pub(super) struct Open {
    inner: Arc<Inner>,
    ids: Ids,
    /// What is recorded; none when the trace is not sampled.
    record: Option<Mutex<Record>>,
}

impl Open {
    /// Starts a span of `kind` at `ids` under `parent`, recorded when its trace is sampled:
    /// then `describe` gives its name and first attributes.
    pub(super) fn start(
        inner: Arc<Inner>,
        ids: Ids,
        parent: Option<([u8; 8], bool)>,
        kind: Kind,
        describe: impl FnOnce() -> (Arc<str>, Attributes),
    ) -> Open {
        let record = ids.sampled.then(|| {
            let (name, attributes) = describe();
            Mutex::new(Record {
                parent,
                name,
                kind,
                start: now(),
                end: 0,
                attributes,
                events: Vec::new(),
                error: None,
            })
        });
        Open { inner, ids, record }
    }

    /// Changes what is recorded (nothing when not sampled).
    fn with(&self, change: impl FnOnce(&mut Record)) {
        if let Some(record) = &self.record {
            change(&mut record.lock().unwrap_or_else(PoisonError::into_inner));
        }
    }

    fn fail(&self, error_type: &'static str, message: String) {
        self.with(|record| {
            record.attributes.str("error.type", error_type);
            record.error = Some(message);
        });
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(record) = &mut self.record {
            let record = record.get_mut().unwrap_or_else(PoisonError::into_inner);
            record.end = now();
            self.inner.batcher.push(&self.ids, record);
        }
    }
}

/// A request's server span. It ends when the last of its holders lets go: the edge once the
/// answer's head is sent, a stream's relay when the stream ends (so a stream's span covers its
/// body).
pub struct ServerSpan(Arc<Server>);

/// A request's server span, and its admission span on its way from the auth layer to the
/// gateway.
struct Server {
    open: Open,
    admission: Mutex<Option<Admission>>,
}

impl ServerSpan {
    pub(super) fn new(open: Open) -> Self {
        ServerSpan(Arc::new(Server {
            open,
            admission: Mutex::new(None),
        }))
    }

    /// Where the request's own spans go.
    pub fn traced(&self) -> Traced {
        Traced(self.0.clone())
    }

    /// Notes the answer's `status` (a 5xx marks it an error) and lets go of it: it ends now,
    /// or when the last [`Traced`] holding it lets go (a stream's relay).
    pub fn answered(self, status: u16) {
        self.0.open.with(|record| {
            let attributes = &mut record.attributes;
            attributes.int("http.response.status_code", i64::from(status));
            if status >= 500 {
                attributes.str("error.type", &status.to_string());
                record.error = Some(String::new());
            }
        });
    }
}

/// Where a request's own spans go: under its server span. Left in the request's extensions by
/// the edge layer while traces are on.
#[derive(Clone)]
pub struct Traced(Arc<Server>);

impl Traced {
    /// A client span under the request's (an upstream attempt), started now; `attributes` are
    /// made only when the trace is sampled.
    pub fn client(&self, name: Arc<str>, attributes: impl FnOnce() -> Attributes) -> ChildSpan {
        self.child(name, Kind::Client, attributes)
    }

    /// The request's span of authentication and admission ([`ADMISSION`]), started now by the
    /// auth layer: it ends there for most requests, after admission for the gateway's.
    pub fn admission(&self) -> Admission {
        // Room for the credential, the candidates, the budget and x402.
        let name = self.0.open.inner.admission.clone();
        let span = self.child(name, Kind::Internal, || Attributes::with_capacity(160));
        Admission(span)
    }

    fn child(
        &self,
        name: Arc<str>,
        kind: Kind,
        attributes: impl FnOnce() -> Attributes,
    ) -> ChildSpan {
        let parent = &self.0.open;
        let ids = parent.ids.child();
        let under = Some((parent.ids.span, false));
        let open = Open::start(parent.inner.clone(), ids, under, kind, || {
            (name, attributes())
        });
        ChildSpan(Box::new(open))
    }

    /// Whether message content goes into spans (`--trace-content`).
    pub fn content(&self) -> bool {
        self.0.open.inner.content
    }

    /// Leaves the request's admission span for the gateway to end (a request it serves was let
    /// through by the auth layer).
    pub fn hand_on(&self, admission: Admission) {
        *self
            .0
            .admission
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(admission);
    }

    /// The admission span the auth layer left, taken out.
    pub fn take_admission(&self) -> Option<Admission> {
        self.0
            .admission
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Adds attributes to the request's server span (what it turned out to be: the token that
    /// sent it, the model that answered, what it cost); made only when the trace is sampled.
    pub fn set(&self, attributes: impl FnOnce(&mut Attributes)) {
        self.0
            .open
            .with(|record| attributes(&mut record.attributes));
    }

    /// Marks the request failed after its answer's head was sent (a stream cut).
    pub fn failed(&self, error_type: &'static str) {
        self.0.open.fail(error_type, String::new());
    }
}

/// A span under a request's: an upstream attempt (client), or the gateway's own work. Dropped,
/// it ends. (Boxed: the futures that hold one stay small.)
pub struct ChildSpan(Box<Open>);

impl ChildSpan {
    /// The W3C `traceparent` header naming this span, for the upstream request it stands for.
    pub fn traceparent(&self) -> Option<(HeaderName, HeaderValue)> {
        self.0.ids.traceparent()
    }

    /// Adds attributes known once the answer came; made only when the trace is sampled.
    pub fn set(&self, attributes: impl FnOnce(&mut Attributes)) {
        self.0.with(|record| attributes(&mut record.attributes));
    }

    /// Marks a moment of the attempt (`gen_ai.first_token`).
    pub fn event(&self, name: &'static str) {
        self.0.with(|record| record.events.push((now(), name)));
    }

    /// Ends it as failed, of `error_type`.
    pub fn failed(self, error_type: &'static str, message: String) {
        self.0.fail(error_type, message);
    }

    /// Ends it.
    pub fn end(self) {}
}

/// A request's one span of authentication and admission ([`ADMISSION`]): started by the auth
/// layer, which ends it there, or, for a gateway request let through, leaves it in the
/// request's extensions for the chat pipeline to end once routing, the token's limit, the
/// budget and any x402 payment admitted the request. Carries `tokctl.key_id` or
/// `tokctl.token_id`, then `tokctl.candidates`, `tokctl.budget_limit` and `tokctl.x402`; a
/// refusal (by either) sets `error.type` and status ERROR. Dropped, it ends.
pub struct Admission(ChildSpan);

impl Admission {
    /// Adds attributes (what authentication or admission found).
    pub fn set(&self, attributes: impl FnOnce(&mut Attributes)) {
        self.0.set(attributes);
    }

    /// Names the credential on this span and on the request's (`tokctl.token_id` or
    /// `tokctl.key_id`: ids, never secrets).
    pub fn credential(&self, traced: &Traced, name: &'static str, id: &str) {
        traced.0.open.with(|record| record.attributes.str(name, id));
        self.0.0.with(|record| record.attributes.str(name, id));
    }

    /// Ends it as failed, of `error_type`.
    pub fn failed(self, error_type: &'static str, message: String) {
        self.0.failed(error_type, message);
    }

    /// Ends it as failed: the request was refused with `code` and `status`.
    pub fn refused(self, code: &'static str, status: u16) {
        if self.0.0.ids.sampled {
            self.0.failed(code, format!("refused: {status}"));
        }
    }

    /// Ends it: the request is admitted.
    pub fn end(self) {}
}
