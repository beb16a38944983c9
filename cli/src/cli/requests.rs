//! `tokctl requests`'s clap definitions: the gateway's request log.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum RequestsCommand {
    /// List gateway requests, newest first (--follow to keep printing new ones).
    List(ListRequestsArgs),
    /// Show one request by the id its answer carried (x-request-id).
    Show {
        /// The request id.
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct ListRequestsArgs {
    /// Only requests this token sent (id or name).
    #[arg(long, conflicts_with = "key")]
    pub token: Option<String>,
    /// Only requests this API key sent (id or name).
    #[arg(long)]
    pub key: Option<String>,
    /// Only requests naming this model or answered by it.
    #[arg(long)]
    pub model: Option<String>,
    /// Only requests answered with this status class or status: 2xx, 4xx, 5xx, 429.
    #[arg(long)]
    pub status: Option<String>,
    /// Only requests that arrived since this time: RFC 3339, or a length of time ago (1h, 2d).
    #[arg(long, value_parser = super::parse_moment)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
    /// Only requests that arrived before this time: RFC 3339, or a length of time ago.
    #[arg(long, value_parser = super::parse_moment)]
    pub until: Option<chrono::DateTime<chrono::Utc>>,
    /// Only requests of this agent session.
    #[arg(long)]
    pub session: Option<String>,
    /// Most requests listed (the newest).
    #[arg(long, short = 'L', default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub limit: u32,
    /// After the list, print each new request as it is logged, until interrupted.
    #[arg(long, short = 'f')]
    pub follow: bool,
}
