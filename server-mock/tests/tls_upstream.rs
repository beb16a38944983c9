//! HTTPS upstreams: an OpenAI-compatible mock served over TLS on 127.0.0.1 with a certificate
//! made here by a CA made here. `.ci/run` also runs this file in a build of the server package
//! alone (`cargo test -p tokctl-server --test tls_upstream`), where no other crate can lend
//! reqwest its TLS backend.

mod common;

use common::both;

use std::sync::Arc;

use axum::Router;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use common::Server;
use common::upstream::{catalogue_with, chat, chunks, content, delta, gateway, sse};
use hyper_util::rt::TokioIo;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tower::ServiceExt;

/// A CA and a certificate it signed for 127.0.0.1: the CA's PEM, and the server's TLS setup.
fn certificates() -> (String, Arc<rustls::ServerConfig>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "tokctl test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone(), ca.der().clone()], key)
        .unwrap();
    (ca.pem(), Arc::new(config))
}

/// The mock's answer: a whole completion, or the same text streamed.
async fn answer(body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap();
    if request["stream"] == true {
        let body = sse(&[
            delta("over "),
            delta("TLS"),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 5, "completion_tokens": 2}}),
        ]);
        return ([("content-type", "text/event-stream")], body).into_response();
    }
    axum::Json(json!({
        "id": "up", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "over TLS"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    }))
    .into_response()
}

/// Serves the mock over TLS on 127.0.0.1; returns its `https://127.0.0.1:PORT/v1` base URL.
async fn tls_upstream(tls: Arc<rustls::ServerConfig>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/v1/chat/completions", post(answer));
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake: nothing to serve.
                let Ok(stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let service =
                    hyper::service::service_fn(move |request| app.clone().oneshot(request));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    format!("https://{addr}/v1")
}

/// A gateway whose `upstream` model is at `base_url` (with `extra` catalogue lines) and whose
/// `local` model is simulated; the catalogue's directory is kept alive with it.
fn gateway_at(base_url: &str, extra: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, Server) {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(tmp.path().join(name), text).unwrap();
    }
    let server = gateway(&catalogue_with(tmp.path(), base_url, "m", extra), "k");
    (tmp, server)
}

/// The message of a gateway error (OpenAI's envelope) with `status`.
async fn failed(response: reqwest::Response, status: u16) -> String {
    assert_eq!(response.status().as_u16(), status);
    let body: Value = response.json().await.unwrap();
    body["error"]["message"].as_str().unwrap().to_string()
}

fn ask(model: &str, stream: bool) -> Value {
    json!({"model": model, "stream": stream, "route_strategy": {"quality_weight": 1, "cost_weight": 0},
           "messages": [{"role": "user", "content": "hello"}]})
}

both! {
    #[tokio::test]
    async fn an_upstream_behind_a_private_ca_answers_whole_and_streamed() {
        let (ca_pem, tls) = certificates();
        let base_url = tls_upstream(tls).await;
        // `ca_file` is relative to the catalogue's directory.
        let (_tmp, server) = gateway_at(&base_url, "ca_file = \"ca.pem\"", &[("ca.pem", &ca_pem)]);

        let response = chat(&server, ask("upstream", false)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let whole: Value = response.json().await.unwrap();
        assert_eq!(whole["choices"][0]["message"]["content"], "over TLS");
        assert_eq!(whole["platform"]["routed_model"], "upstream");
        assert_eq!(whole["usage"]["completion_tokens"], 2);

        let response = chat(&server, ask("upstream", true)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let chunks = chunks(&response.text().await.unwrap());
        assert_eq!(content(&chunks), "over TLS");
        let last = chunks.last().unwrap();
        assert_eq!(last["choices"][0]["finish_reason"], "stop");
        assert_eq!(last["platform"]["routed_model"], "upstream");
    }
}

both! {
    #[tokio::test]
    async fn a_certificate_from_an_unknown_ca_is_refused_and_the_reason_says_so() {
        let (_, tls) = certificates();
        let base_url = tls_upstream(tls).await;
        let (_tmp, mut server) = gateway_at(&base_url, "", &[]);

        // `auto` tries the upstream (best quality) first, then falls back to the simulated model.
        let response = chat(&server, ask("auto", false)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["platform"]["routed_model"], "local");
        let reason = answer["platform"]["route_reason"].as_str().unwrap();
        assert!(
            reason.contains("fell back to local after upstream (TLS certificate rejected:"),
            "{reason}"
        );

        let message = failed(chat(&server, ask("upstream", true)).await, 502).await;
        assert!(message.contains("TLS certificate rejected"), "{message}");
        // Stopped first, so every line it logged has been read from its pipe.
        assert!(server.stop());
        assert!(
            server.logs().contains("TLS certificate rejected"),
            "{}",
            server.logs()
        );
    }
}

both! {
    #[tokio::test]
    async fn refused_and_silent_upstreams_are_named_as_such() {
        // A port that was free a moment ago refuses connections, over https and plain http alike.
        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        for scheme in ["https", "http"] {
            let (_tmp, server) = gateway_at(&format!("{scheme}://127.0.0.1:{port}/v1"), "", &[]);
            let message = failed(chat(&server, ask("upstream", false)).await, 502).await;
            assert!(
                message.contains("upstream (connection refused"),
                "{scheme}: {message}"
            );
        }

        // A listener that accepts and never says a word: the TLS handshake never ends.
        let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("https://{}/v1", silent.local_addr().unwrap());
        let (_tmp, server) = gateway_at(&base_url, "timeout_ms = 300", &[]);
        let message = failed(chat(&server, ask("upstream", false)).await, 504).await;
        assert!(message.contains("upstream (timed out)"), "{message}");
        drop(silent);
    }
}
