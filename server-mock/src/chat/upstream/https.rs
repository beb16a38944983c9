//! `https://` upstreams, through reqwest with rustls: the platform's trust roots, plus the
//! model's own CA when its catalogue entry names a `ca_file`.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use hyper::header::{CONTENT_TYPE, RETRY_AFTER};

use super::Reply;
use crate::chat::answer::Failure;
use crate::outbound;

/// How long a TCP connection and TLS handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A client for one model's upstream.
pub fn client(ca_file: Option<&Path>, read_timeout: Duration) -> anyhow::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .tls_backend_rustls()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(read_timeout);
    if let Some(path) = ca_file {
        let pem = std::fs::read(path)
            .map_err(|err| anyhow::anyhow!("ca_file {}: {err}", path.display()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| anyhow::anyhow!("ca_file {}: {err}", path.display()))?;
        if certs.is_empty() {
            anyhow::bail!("ca_file {} holds no PEM certificate", path.display());
        }
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|err| anyhow::anyhow!("cannot set up HTTPS: {}", outbound::chain(&err)))
}

/// POSTs a JSON `body` to `url`; resolves once the answer's head has arrived.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: super::Headers<'_>,
    body: Vec<u8>,
) -> Result<Reply, Failure> {
    let mut request = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .body(body);
    for (name, value) in headers.iter() {
        request = request.header(name.clone(), value.clone());
    }
    let response = request.send().await.map_err(|err| failure(&err))?;
    let status = response.status();
    let retry_after = response.headers().get(RETRY_AFTER).cloned();
    let body = response
        .bytes_stream()
        .map(|r| r.map_err(|err| failure(&err)));
    Ok(Reply::new(status, retry_after.as_ref(), Box::pin(body)))
}

fn failure(err: &reqwest::Error) -> Failure {
    if err.is_timeout() {
        Failure::timeout()
    } else {
        Failure::other(outbound::request(err))
    }
}
