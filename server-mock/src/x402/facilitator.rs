//! The facilitator's HTTP API, as the x402 specification gives it: `POST /verify`,
//! `POST /settle` (both `{x402Version, paymentPayload, paymentRequirements}`), and
//! `GET /supported`, whose `upto` kinds name the address that settles (`facilitatorAddress`),
//! which an `upto` offer must carry. That address is kept for a few minutes per facilitator and
//! network.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::wire::{
    FacilitatorRequest, PaymentPayload, Requirements, SettleResponse, VerifyResponse,
};

/// How long `/verify` may take.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long `/settle` may take: it waits for the transaction's receipt.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a facilitator's `upto` address is used before it is asked again.
const SUPPORTED_FOR: Duration = Duration::from_secs(300);

/// Why the facilitator gave no answer to act on.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the facilitator at {url} {why}")]
pub struct Unreachable {
    pub url: String,
    pub why: String,
}

/// `(facilitator URL, network)`: the `upto` settler's address, if it offers `upto`, and when it
/// was asked.
type Settlers = HashMap<(String, String), (Option<String>, Instant)>;

/// A client of facilitators (each workspace names its own).
pub struct Facilitator {
    http: reqwest::Client,
    upto: Mutex<Settlers>,
}

impl Default for Facilitator {
    fn default() -> Self {
        let http = reqwest::Client::builder()
            .user_agent(concat!("tokctl-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Facilitator {
            http,
            upto: Mutex::default(),
        }
    }
}

#[derive(Deserialize)]
struct Supported {
    #[serde(default)]
    kinds: Vec<Kind>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Kind {
    #[serde(default)]
    x402_version: u8,
    scheme: String,
    network: String,
    #[serde(default)]
    extra: serde_json::Value,
}

impl Facilitator {
    /// Asks `url` whether `payment` satisfies `requirements`.
    pub async fn verify(
        &self,
        url: &str,
        payment: &PaymentPayload,
        requirements: &Requirements,
    ) -> Result<VerifyResponse, Unreachable> {
        self.post(url, "verify", payment, requirements, VERIFY_TIMEOUT)
            .await
    }

    /// Asks `url` to settle `payment` for `requirements.amount`.
    pub async fn settle(
        &self,
        url: &str,
        payment: &PaymentPayload,
        requirements: &Requirements,
    ) -> Result<SettleResponse, Unreachable> {
        self.post(url, "settle", payment, requirements, SETTLE_TIMEOUT)
            .await
    }

    /// The address that settles `upto` payments on `network` at `url`, or `None` when it does
    /// not offer `upto` there.
    pub async fn upto_settler(
        &self,
        url: &str,
        network: &str,
    ) -> Result<Option<String>, Unreachable> {
        let key = (url.to_string(), network.to_string());
        if let Some((address, asked)) = self.lock().get(&key)
            && asked.elapsed() < SUPPORTED_FOR
        {
            return Ok(address.clone());
        }
        let unreachable = |why: String| Unreachable {
            url: url.to_string(),
            why,
        };
        let response = self
            .http
            .get(format!("{url}/supported"))
            .timeout(VERIFY_TIMEOUT)
            .send()
            .await
            .map_err(|err| unreachable(crate::outbound::request(&err)))?;
        let supported: Supported = read(response)
            .await
            .map_err(|why| unreachable(format!("answered /supported with {why}")))?;
        let address = supported
            .kinds
            .into_iter()
            .filter(|kind| {
                kind.x402_version == 2 && kind.scheme == "upto" && kind.network == network
            })
            .find_map(|kind| kind.extra["facilitatorAddress"].as_str().map(String::from));
        self.lock().insert(key, (address.clone(), Instant::now()));
        Ok(address)
    }

    async fn post<T: DeserializeOwned>(
        &self,
        url: &str,
        operation: &str,
        payment: &PaymentPayload,
        requirements: &Requirements,
        timeout: Duration,
    ) -> Result<T, Unreachable> {
        let unreachable = |why: String| Unreachable {
            url: url.to_string(),
            why,
        };
        let body = FacilitatorRequest {
            x402_version: payment.x402_version,
            payment_payload: payment,
            payment_requirements: requirements,
        };
        let response = self
            .http
            .post(format!("{url}/{operation}"))
            .timeout(timeout)
            .json(&body)
            .send()
            .await
            .map_err(|err| {
                unreachable(format!("({operation}): {}", crate::outbound::request(&err)))
            })?;
        read(response)
            .await
            .map_err(|why| unreachable(format!("answered /{operation} with {why}")))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Settlers> {
        self.upto.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A facilitator's JSON answer; any status but 200 is no answer (the official facilitators
/// answer a refused payment with 200 and `isValid: false` or `success: false`).
async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, String> {
    let status = response.status();
    if status != reqwest::StatusCode::OK {
        return Err(format!("HTTP {}", status.as_u16()));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|err| format!("a cut answer: {}", crate::outbound::request(&err)))?;
    serde_json::from_slice(&bytes).map_err(|err| format!("an answer that is not x402: {err}"))
}
