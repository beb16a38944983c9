//! Leaked credentials: report token secrets and API keys found where they should not be (a
//! public repository, a log, a paste), and the service revokes every live one among them.

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;

/// Most secrets the service takes in one request; [`Credentials::revoke`] sends larger batches
/// in several.
pub const MAX_PER_REQUEST: usize = 100;

/// Leak reports, from [`Client::credentials`].
pub struct Credentials<'c> {
    client: &'c Client,
}

#[derive(Serialize)]
struct Report<'a> {
    credentials: Vec<&'a str>,
}

#[derive(Deserialize)]
struct Received {
    received: usize,
}

impl<'c> Credentials<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Credentials { client }
    }

    /// Reports `secrets` as leaked: each live token or API key among them stops working at once
    /// (as if revoked by `DELETE`, audited in its own workspace with actor `leak-report`).
    /// Returns how many strings the service received, which is the number sent: the answer is
    /// the same whatever was live, so it tells nothing about the secrets. Strings that are no
    /// secret, unknown secrets and ones already revoked are accepted and ignored. Nothing is
    /// sent for an empty list.
    ///
    /// No API key is needed, and the client's own is never sent with the report. Batches of more
    /// than [`MAX_PER_REQUEST`] go in several requests, one after another; if one fails, the
    /// batches before it have been reported (reporting again is harmless). Reports have their own
    /// rate limit per client address (a 429 is waited out per the [`crate::RetryPolicy`]), and
    /// [`Client::rate_limit`] does not follow it.
    ///
    /// ```no_run
    /// # async fn run() -> tokctl_sdk::Result<()> {
    /// let client = tokctl_sdk::Client::builder().build()?;
    /// let text = std::fs::read_to_string("build.log").unwrap_or_default();
    /// let found = tokctl_sdk::secrets::find(text.as_bytes()).map(|found| found.secret);
    /// let received = client.credentials().revoke(found).await?;
    /// println!("reported {received} secret(s)");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn revoke<I, S>(&self, secrets: I) -> Result<usize>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let secrets: Vec<S> = secrets.into_iter().collect();
        let url = self.client.url(&["credentials", "revoke"]);
        let mut received = 0;
        for batch in secrets.chunks(MAX_PER_REQUEST) {
            let report = Report {
                credentials: batch.iter().map(AsRef::as_ref).collect(),
            };
            let answer: Received = self.client.post_anonymous(url.clone(), &report).await?;
            received += answer.received;
        }
        Ok(received)
    }
}
