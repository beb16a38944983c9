//! What every request passes through, as two small tower layers whose futures are not boxed
//! and which leave the response body as it is:
//!
//! - [`EdgeLayer`], outermost: gives the request its id and writes `x-request-id` on the
//!   answer, rewrites errors on the OpenAI-compatible paths into OpenAI's envelope (and on
//!   Anthropic's into Anthropic's), and logs
//!   the answer to [`crate::telemetry`] (and a 5xx at `error`).
//! - [`PanicLayer`]: a panic while serving becomes a 500 in the error shape, never a dropped
//!   connection.

use std::convert::Infallible;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use crate::http::anthropic::{anthropic_envelope, is_anthropic_path};
use crate::http::error::{ApiError, ErrorCode, Refused};
use crate::http::openai::{is_openai_path, openai_envelope};
use crate::http::request_id;
use crate::request_log::{LOGGED_PATHS, Logged, RequestLog};
use crate::telemetry;

/// Layer of [`Edge`], recording into `metrics`, and counting requests refused during an
/// `outage` of the database instead of logging each.
#[derive(Clone, Default)]
pub struct EdgeLayer {
    pub metrics: telemetry::Metrics,
    pub traces: telemetry::Traces,
    pub outage: Option<Arc<telemetry::Outage>>,
    /// Where the gateway's requests are logged (nowhere when the log is off).
    pub requests: Option<Arc<RequestLog>>,
}

impl<S> Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge {
            inner,
            metrics: self.metrics.clone(),
            traces: self.traces.clone(),
            outage: self.outage.clone(),
            requests: self.requests.clone(),
        }
    }
}

/// Request id, OpenAI envelope and the log line around `S` (see the module docs).
#[derive(Clone)]
pub struct Edge<S> {
    inner: S,
    metrics: telemetry::Metrics,
    traces: telemetry::Traces,
    outage: Option<Arc<telemetry::Outage>>,
    requests: Option<Arc<RequestLog>>,
}

impl<S> Service<Request> for Edge<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = EdgeFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let (id, made) = request_id::assign(&mut request);
        let path = request.uri().path();
        let envelope = match (is_openai_path(path), is_anthropic_path(path)) {
            (true, _) => Envelope::OpenAi,
            (_, true) => Envelope::Anthropic,
            _ => Envelope::Api,
        };
        // The coding agents' paths, whose clients cannot read the gateway's `platform` object.
        let agents = envelope == Envelope::Anthropic || path == "/v1/responses";
        let noted = self.metrics.arrived(request.method(), request.uri().path());
        let logged = match (&self.requests, &id) {
            (Some(log), Some(id)) if LOGGED_PATHS.contains(&path) => {
                let session = telemetry::session_id(request.headers());
                Some(log.open(id.to_str().unwrap_or_default(), made, path, session))
            }
            _ => None,
        };
        let span = self
            .traces
            .server(request.method(), path, request.headers());
        if let Some(logged) = &logged {
            request.extensions_mut().insert(logged.clone());
        }
        if let Some(traced) = span.as_ref().map(telemetry::ServerSpan::traced) {
            request.extensions_mut().insert(traced);
        }
        if let Some(noted) = &noted
            && self.metrics.is_on()
        {
            let arrival = telemetry::Arrival(noted.started());
            request.extensions_mut().insert(arrival);
        }
        EdgeFuture {
            inner: self.inner.call(request),
            id,
            envelope,
            agents,
            noted,
            span,
            logged,
            outage: self.outage.clone(),
        }
    }
}

/// Whose error envelope a path answers in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// The token API's own.
    Api,
    /// OpenAI's (chat completions, responses, models).
    OpenAi,
    /// Anthropic's (messages).
    Anthropic,
}

pin_project! {
    /// The answer of [`Edge`].
    pub struct EdgeFuture<F> {
        #[pin]
        inner: F,
        id: Option<HeaderValue>,
        envelope: Envelope,
        // Whether the answer carries the request id as `x-tokctl-request-id` too.
        agents: bool,
        noted: Option<telemetry::Request>,
        span: Option<telemetry::ServerSpan>,
        logged: Option<Logged>,
        outage: Option<Arc<telemetry::Outage>>,
    }
}

impl<F> Future for EdgeFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Ok(mut response) = ready!(this.inner.poll(cx));
        if !response.status().is_success() {
            match this.envelope {
                Envelope::OpenAi => response = openai_envelope(response),
                Envelope::Anthropic => response = anthropic_envelope(response),
                Envelope::Api => {}
            }
        }
        let status = response.status().as_u16();
        let id = this.id.take();
        // During an outage its refusals are counted (its end says how many), not logged.
        let quiet = match (response.extensions().get::<Refused>(), this.outage.as_ref()) {
            (Some(Refused::Request), Some(outage)) => outage.refused(),
            (Some(Refused::Probe), Some(outage)) => outage.is_down(),
            _ => false,
        };
        if response.status().is_server_error() && !quiet {
            let request_id = id.as_ref().and_then(|id| id.to_str().ok());
            tracing::error!(status, request_id, "answered with a server error");
        }
        if let Some(noted) = this.noted.take() {
            noted.answered(status);
        }
        if let Some(span) = this.span.take() {
            span.answered(status);
        }
        if let Some(logged) = this.logged.take() {
            let code = response.extensions().get::<ErrorCode>().map(|code| code.0);
            logged.status(status, code);
        }
        if let Some(id) = id {
            if *this.agents {
                let tokctl = request_id::TOKCTL_HEADER;
                response.headers_mut().insert(tokctl, id.clone());
            }
            response.headers_mut().insert(request_id::HEADER, id);
        }
        Poll::Ready(Ok(response))
    }
}

/// Layer of [`Panics`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PanicLayer;

impl<S> Layer<S> for PanicLayer {
    type Service = Panics<S>;

    fn layer(&self, inner: S) -> Panics<S> {
        Panics { inner }
    }
}

/// Answers a panic in `S` with a 500 (see the module docs).
#[derive(Debug, Clone)]
pub struct Panics<S> {
    inner: S,
}

impl<S> Service<Request> for Panics<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = PanicFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let inner = catch_unwind(AssertUnwindSafe(|| self.inner.call(request))).ok();
        PanicFuture { inner }
    }
}

pin_project! {
    /// The answer of [`Panics`]; `inner` is `None` when calling the service panicked.
    pub struct PanicFuture<F> {
        #[pin]
        inner: Option<F>,
    }
}

impl<F> Future for PanicFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(inner) = self.project().inner.as_pin_mut() else {
            return Poll::Ready(Ok(ApiError::Internal.into_response()));
        };
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(poll) => poll,
            Err(_) => Poll::Ready(Ok(ApiError::Internal.into_response())),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::{Body, to_bytes};
    use axum::routing::get;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::*;

    async fn boom() -> Response {
        panic!("a handler bug")
    }

    /// Asks `path` of a router whose every route panics, behind both layers.
    async fn ask(path: &str, request_id: &str) -> (u16, Option<String>, Value) {
        let app = Router::new()
            .route("/v1/tokens", get(boom))
            .route("/v1/models", get(boom))
            .layer(PanicLayer)
            .layer(EdgeLayer::default());
        let request = Request::get(path)
            .header(request_id::HEADER, request_id)
            .body(Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let id = response.headers().get(request_id::HEADER);
        let id = id.map(|v| v.to_str().unwrap().to_string());
        let body = to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, id, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn a_panic_is_a_500_in_the_error_shape_carrying_the_request_id() {
        let (status, id, body) = ask("/v1/tokens", "client-id-1").await;
        assert_eq!(status, 500);
        assert_eq!(id.as_deref(), Some("client-id-1"));
        assert_eq!(
            body,
            json!({"error": "internal_error", "message": "Internal server error", "status": 500})
        );
    }

    #[tokio::test]
    async fn on_openai_paths_a_panic_is_a_500_in_openais_envelope() {
        let (status, _, body) = ask("/v1/models", "client-id-2").await;
        assert_eq!(status, 500);
        assert_eq!(
            body,
            json!({"error": {"message": "Internal server error", "type": "api_error", "code": "internal_error", "param": null}})
        );
    }

    #[tokio::test]
    async fn a_request_id_that_is_not_plain_is_replaced() {
        let (_, id, _) = ask("/v1/tokens", "two words").await;
        let id = id.unwrap();
        assert!(id.starts_with("req_") && id.len() == 28, "{id}");
    }
}
