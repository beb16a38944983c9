//! The verbs resources call (GET, POST, PUT, PATCH, DELETE, a paid POST): each encodes its body
//! as JSON, sends it through the client's core (`Client::send`: auth, retries, rate limits) and
//! decodes the answer.

use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

use super::Client;
use crate::error::{Error, RawBody, Result};

impl Client {
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        url: Url,
        query: &[(&str, String)],
    ) -> Result<T> {
        let body = self.send(Method::GET, url, query, None, true).await?;
        decode(&body)
    }

    pub(crate) async fn post<T: DeserializeOwned>(
        &self,
        url: Url,
        body: Option<&impl Serialize>,
    ) -> Result<T> {
        self.post_as(url, body, true).await
    }

    /// A POST sent without the API key, even when the client has one: for calls anyone may
    /// make, whose requests must not carry the caller's own credential.
    pub(crate) async fn post_anonymous<T: DeserializeOwned>(
        &self,
        url: Url,
        body: &impl Serialize,
    ) -> Result<T> {
        self.post_as(url, Some(body), false).await
    }

    /// A POST carrying the x402 payment `payment` (`PAYMENT-SIGNATURE`).
    pub(crate) async fn post_paid<T: DeserializeOwned>(
        &self,
        url: Url,
        body: &impl Serialize,
        payment: &str,
    ) -> Result<T> {
        let body = self
            .send_with(
                Method::POST,
                url,
                &[],
                Some(encode(body)?),
                true,
                Some(payment),
            )
            .await?;
        decode(&body)
    }

    async fn post_as<T: DeserializeOwned>(
        &self,
        url: Url,
        body: Option<&impl Serialize>,
        authorized: bool,
    ) -> Result<T> {
        let json = body.map(encode).transpose()?;
        let body = self.send(Method::POST, url, &[], json, authorized).await?;
        decode(&body)
    }

    pub(crate) async fn put<T: DeserializeOwned>(
        &self,
        url: Url,
        body: &impl Serialize,
    ) -> Result<T> {
        self.send_json(Method::PUT, url, body).await
    }

    pub(crate) async fn patch<T: DeserializeOwned>(
        &self,
        url: Url,
        body: &impl Serialize,
    ) -> Result<T> {
        self.send_json(Method::PATCH, url, body).await
    }

    /// `method url` with `body` as JSON, authorized; the answer decoded.
    async fn send_json<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: &impl Serialize,
    ) -> Result<T> {
        let body = self
            .send(method, url, &[], Some(encode(body)?), true)
            .await?;
        decode(&body)
    }

    pub(crate) async fn delete(&self, url: Url) -> Result<()> {
        self.send(Method::DELETE, url, &[], None, true)
            .await
            .map(|_| ())
    }
}

/// `body` as JSON bytes.
fn encode(body: &impl Serialize) -> Result<Vec<u8>> {
    serde_json::to_vec(body)
        .map_err(|err| Error::Config(format!("cannot encode the request: {err}")))
}

fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T> {
    serde_json::from_slice(body).map_err(|source| Error::Decode {
        source,
        body: RawBody::new(body),
    })
}
