//! A request's spans: its server span, the one span of its authentication and admission, and a
//! client span per upstream attempt.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::http::header::{HeaderName, HeaderValue};
use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt, TraceFlags, Tracer as _};
use opentelemetry::{Context, KeyValue, Value};
use opentelemetry_sdk::trace::Span as SdkSpan;

use super::{Inner, TRACEPARENT, Traces};

/// The name of a request's span of authentication and admission.
pub const ADMISSION: &str = "admission";

/// A request's server span. It ends when the last of its holders lets go: the edge once the
/// answer's head is sent, a stream's relay when the stream ends (so a stream's span covers its
/// body).
pub struct ServerSpan(pub(super) Context);

impl ServerSpan {
    /// Where the request's own spans go.
    pub fn traced(&self, traces: &Traces) -> Option<Traced> {
        let inner = traces.0.clone()?;
        Some(Traced {
            inner,
            cx: self.0.clone(),
        })
    }

    /// Notes the answer's `status` (a 5xx marks it an error) and lets go of it: it ends now,
    /// or when the last [`Traced`] holding it lets go (a stream's relay).
    pub fn answered(self, status: u16) {
        let span = self.0.span();
        span.set_attribute(KeyValue::new(
            "http.response.status_code",
            i64::from(status),
        ));
        if status >= 500 {
            span.set_attribute(KeyValue::new("error.type", status.to_string()));
            span.set_status(Status::error(""));
        }
    }
}

/// Where a request's own spans go: under its server span, through the server's tracer. Left in
/// the request's extensions by the edge layer while traces are on.
#[derive(Clone)]
pub struct Traced {
    inner: Arc<Inner>,
    cx: Context,
}

impl Traced {
    /// A client span under the request's (an upstream attempt), started now.
    pub fn client(&self, name: String, attributes: Vec<KeyValue>) -> ChildSpan {
        self.child(name.into(), SpanKind::Client, attributes)
    }

    /// The request's span of authentication and admission ([`ADMISSION`]), started now by the
    /// auth layer: it ends there for most requests, after admission for the gateway's.
    pub fn admission(&self) -> Admission {
        // Room for the credential, the candidates, the budget and x402.
        let attributes = Vec::with_capacity(4);
        Admission(self.child(ADMISSION.into(), SpanKind::Internal, attributes))
    }

    fn child(
        &self,
        name: std::borrow::Cow<'static, str>,
        kind: SpanKind,
        attributes: Vec<KeyValue>,
    ) -> ChildSpan {
        let tracer = &self.inner.tracer;
        let span = tracer
            .span_builder(name)
            .with_kind(kind)
            .with_attributes(attributes)
            .start_with_context(tracer, &self.cx);
        ChildSpan(Box::new(Mutex::new(span)))
    }

    /// Whether message content goes into spans (`--trace-content`).
    pub fn content(&self) -> bool {
        self.inner.content
    }

    /// Adds attributes to the request's server span (what it turned out to be: the token that
    /// sent it, the model that answered, what it cost).
    pub fn set(&self, attributes: Vec<KeyValue>) {
        self.cx.span().set_attributes(attributes);
    }

    /// Adds one attribute to the request's server span.
    pub fn set_one(&self, attribute: KeyValue) {
        self.cx.span().set_attribute(attribute);
    }

    /// Marks the request failed after its answer's head was sent (a stream cut).
    pub fn failed(&self, error_type: &'static str) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("error.type", error_type));
        span.set_status(Status::error(""));
    }
}

/// A span under a request's: an upstream attempt (client), or the gateway's own work. Dropped,
/// it ends. (The SDK's span itself behind a lock of its own, boxed: no context, no `Arc`, and
/// the futures that hold one stay small.)
pub struct ChildSpan(Box<Mutex<SdkSpan>>);

impl ChildSpan {
    fn lock(&self) -> MutexGuard<'_, SdkSpan> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn into_span(self) -> SdkSpan {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    /// The W3C `traceparent` header naming this span, for the upstream request it stands for.
    pub fn traceparent(&self) -> Option<(HeaderName, HeaderValue)> {
        let span = self.lock();
        let context = span.span_context();
        if !context.is_valid() {
            return None;
        }
        // `00-{trace id}-{span id}-{flags}`, written without the formatting machinery.
        let mut text = [b'-'; 55];
        text[..2].copy_from_slice(b"00");
        hex(&context.trace_id().to_bytes(), &mut text[3..35]);
        hex(&context.span_id().to_bytes(), &mut text[36..52]);
        let flags = context.trace_flags() & TraceFlags::SAMPLED;
        hex(&[flags.to_u8()], &mut text[53..55]);
        let value = HeaderValue::from_bytes(&text).ok()?;
        Some((TRACEPARENT, value))
    }

    /// Adds attributes known once the answer came.
    pub fn set(&self, attributes: Vec<KeyValue>) {
        self.lock().set_attributes(attributes);
    }

    /// Marks a moment of the attempt (`gen_ai.first_token`).
    pub fn event(&self, name: &'static str) {
        self.lock().add_event(name, Vec::new());
    }

    /// Ends it as failed, of `error_type`.
    pub fn failed(self, error_type: &'static str, message: String) {
        let mut span = self.into_span();
        span.set_attribute(KeyValue::new("error.type", error_type));
        span.set_status(Status::error(message));
        span.end();
    }

    /// Ends it.
    pub fn end(self) {
        self.into_span().end();
    }
}

/// Lowercase hex of `bytes` into `out` (twice as long).
fn hex(bytes: &[u8], out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (byte, pair) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0xf)];
    }
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
    pub fn set(&self, attributes: Vec<KeyValue>) {
        self.0.set(attributes);
    }

    /// Names the credential on this span and on the request's (`tokctl.token_id` or
    /// `tokctl.key_id`: ids, never secrets).
    pub fn credential(&self, traced: &Traced, name: &'static str, id: &str) {
        let id = Value::String(Arc::<str>::from(id).into());
        traced.set_one(KeyValue::new(name, id.clone()));
        self.0.lock().set_attribute(KeyValue::new(name, id));
    }

    /// Ends it as failed, of `error_type`.
    pub fn failed(self, error_type: &'static str, message: String) {
        self.0.failed(error_type, message);
    }

    /// Ends it as failed: the request was refused with `code` and `status`.
    pub fn refused(self, code: &'static str, status: u16) {
        self.0.failed(code, format!("refused: {status}"));
    }

    /// Ends it: the request is admitted.
    pub fn end(self) {
        self.0.end();
    }
}

/// An admission span on its way from the auth layer to the gateway in the request's extensions,
/// which hold only values that can be cloned: a copy carries no span (a span has one owner), so
/// only the extension itself, taken out with `remove`, hands the span on.
pub struct Handoff(Option<Admission>);

impl Handoff {
    /// Hands `span` on.
    pub fn new(span: Admission) -> Self {
        Handoff(Some(span))
    }

    /// The span handed on (none in a copy).
    pub fn take(self) -> Option<Admission> {
        self.0
    }
}

impl Clone for Handoff {
    fn clone(&self) -> Self {
        Handoff(None)
    }
}
