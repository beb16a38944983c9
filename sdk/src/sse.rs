//! Server-sent events for streamed chat completions, read with `eventsource-client` over this
//! crate's one reqwest connection pool. Reconnection and redirects are off: an SSE client that
//! reconnects would POST the completion again. No overall time limit applies: the pool's read
//! timeout bounds the wait for the response and each gap between two chunks.

use std::time::Instant;

use bytes::Bytes;
use eventsource_client::{Client as _, ClientBuilder, ReconnectOptions, SSE};
use futures::{Stream, StreamExt, TryStreamExt};
use launchdarkly_sdk_transport::{ByteStream, HttpTransport, ResponseFuture, TransportError};
use sync_wrapper::{SyncFuture, SyncStream};

use crate::client::{RequestEvent, RequestObserver};

use crate::error::{ConnectCause, Error, Result};

/// `eventsource-client`'s transport, on reqwest.
#[derive(Clone)]
pub(crate) struct Transport {
    pub http: reqwest::Client,
    pub observer: Option<RequestObserver>,
}

impl HttpTransport for Transport {
    fn request(&self, request: http::Request<Option<Bytes>>) -> ResponseFuture {
        let (parts, body) = request.into_parts();
        let http = self.http.clone();
        let observer = self.observer.clone();
        let future = async move {
            let started = Instant::now();
            let mut builder = http
                .request(parts.method.clone(), parts.uri.to_string())
                .headers(parts.headers);
            if let Some(body) = body {
                builder = builder.body(body);
            }
            let response = builder.send().await;
            if let Some(observer) = &observer {
                observer(&RequestEvent {
                    method: parts.method.to_string(),
                    path: parts.uri.path().to_string(),
                    status: response.as_ref().ok().map(|r| r.status().as_u16()),
                    elapsed: started.elapsed(),
                    attempt: 0,
                });
            }
            let response = response.map_err(TransportError::new)?;
            if response.status().is_redirection() {
                return Err(TransportError::new(Redirected::read(response).await));
            }
            let mut out = http::Response::builder().status(response.status());
            if let Some(headers) = out.headers_mut() {
                *headers = response.headers().clone();
            }
            let body: ByteStream = Box::pin(SyncStream::new(
                response.bytes_stream().map_err(TransportError::new),
            ));
            out.body(body).map_err(TransportError::new)
        };
        Box::pin(SyncFuture::new(future))
    }
}

/// POSTs `body` as JSON to `url` and yields each event's data until `[DONE]`.
/// `shown` is the base URL errors name.
pub(crate) fn post(
    transport: Transport,
    url: &str,
    shown: &str,
    authorization: Option<&str>,
    payment: Option<&str>,
    body: String,
) -> Result<impl Stream<Item = Result<String>> + Send + use<>> {
    let config =
        |err: eventsource_client::Error| Error::Config(format!("cannot open the stream: {err}"));
    let mut builder = ClientBuilder::for_url(url)
        .map_err(config)?
        .method("POST".into())
        .body(body)
        .header("Content-Type", "application/json")
        .map_err(config)?
        .header("Accept", "text/event-stream")
        .map_err(config)?
        .reconnect(ReconnectOptions::reconnect(false).build())
        .redirect_limit(0);
    if let Some(authorization) = authorization {
        builder = builder
            .header("Authorization", authorization)
            .map_err(config)?;
    }
    if let Some(payment) = payment {
        builder = builder
            .header("PAYMENT-SIGNATURE", payment)
            .map_err(config)?;
    }
    let client = builder.build_with_transport(transport);
    let shown = shown.to_string();
    let events = client.stream().then(move |item| {
        let shown = shown.clone();
        async move {
            match item {
                Ok(SSE::Event(event)) => Some(Ok(event.data)),
                Ok(SSE::Connected(_) | SSE::Comment(_)) => None,
                Err(eventsource_client::Error::Eof) => {
                    Some(Err(Error::Stream("the stream ended before [DONE]".into())))
                }
                Err(eventsource_client::Error::UnexpectedResponse(response, body)) => {
                    let bytes: Vec<u8> = body
                        .into_stream()
                        .try_fold(Vec::new(), |mut all, chunk| async move {
                            all.extend_from_slice(&chunk);
                            Ok(all)
                        })
                        .await
                        .unwrap_or_default();
                    let mut headers = reqwest::header::HeaderMap::new();
                    for name in response.get_header_keys() {
                        if let (Ok(name), Ok(Some(value))) = (
                            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
                            response.get_header_value(name),
                        ) && let Ok(value) = reqwest::header::HeaderValue::from_str(value)
                        {
                            headers.insert(name, value);
                        }
                    }
                    Some(Err(Error::from_response(
                        response.status(),
                        &headers,
                        &bytes,
                    )))
                }
                Err(eventsource_client::Error::Transport(err)) => {
                    Some(Err(transport_error(&err, &shown)))
                }
                Err(eventsource_client::Error::TimedOut) => Some(Err(Error::Timeout)),
                Err(err) => Some(Err(Error::Stream(err.to_string()))),
            }
        }
    });
    // Stop at `[DONE]` and after the first error, dropping the connection at once: the SSE
    // client is never polled again, so it can neither reconnect nor wait on a dead socket.
    let events = Box::pin(events.filter_map(std::future::ready));
    Ok(futures::stream::unfold(Some(events), |events| async move {
        let mut events = events?;
        match events.next().await? {
            Ok(data) if data.trim() == "[DONE]" => None,
            Ok(data) => Some((Ok(data), Some(events))),
            Err(err) => Some((Err(err), None)),
        }
    }))
}

/// A 3xx answer to a stream request. The API has no redirects, so it is an error, decoded like
/// any other error status.
#[derive(Debug)]
struct Redirected {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Redirected {
    async fn read(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .bytes()
            .await
            .map(|b| b.to_vec())
            .unwrap_or_default();
        Redirected {
            status,
            headers,
            body,
        }
    }
}

impl std::fmt::Display for Redirected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unexpected redirect (HTTP {})", self.status)
    }
}

impl std::error::Error for Redirected {}

/// What the transport reported, as the SDK's error; `shown` is the base URL errors name.
fn transport_error(err: &TransportError, shown: &str) -> Error {
    let inner = err.inner();
    let reqwest = inner.downcast_ref::<reqwest::Error>();
    if let Some(redirected) = inner.downcast_ref::<Redirected>() {
        Error::from_response(redirected.status, &redirected.headers, &redirected.body)
    } else if reqwest.is_some_and(reqwest::Error::is_connect) {
        let cause = if reqwest.is_some_and(reqwest::Error::is_timeout) {
            ConnectCause::TimedOut
        } else {
            crate::transport::connect_cause(inner)
        };
        Error::Connect {
            url: shown.to_string(),
            cause,
        }
    } else if reqwest.is_some_and(reqwest::Error::is_timeout) {
        Error::Timeout
    } else {
        // reqwest's own text ("error decoding response body") hides the cause: add the chain.
        Error::Stream(crate::transport::chain(inner))
    }
}
