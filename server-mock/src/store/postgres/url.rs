//! The database URL: libpq's `postgres://user:password@host:port/dbname?param=value`, its TLS
//! parameters read here (`tls.rs` gives them their meaning), the rest by tokio-postgres.

use std::str::FromStr;
use std::time::Duration;

use percent_encoding::percent_decode_str;
use tokio_postgres::Config;
use tokio_postgres::config::Host;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::describe;
use super::tls;
use crate::store::{StoreError, StoreResult};

/// How long an idle connection to a peer that vanished stays open before TCP notices.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(5);

/// A PostgreSQL URL (`postgres://user@host:port/dbname?sslmode=verify-full`), parsed, with its
/// TLS settings (`tls.rs`). Its password never appears in messages: [`DatabaseUrl::target`]
/// names only the host, port and database.
#[derive(Clone)]
pub struct DatabaseUrl {
    config: Config,
    tls: tls::Settings,
}

impl FromStr for DatabaseUrl {
    type Err = String;

    fn from_str(url: &str) -> Result<Self, String> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(
                "must be a postgres:// URL, e.g. postgres://user@127.0.0.1:5432/tokctl".into(),
            );
        }
        // The TLS parameters are read here (tokio-postgres knows only some of them); the rest
        // of the query goes to its parser as it came.
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let decode = |text: &str| percent_decode_str(text).decode_utf8_lossy().into_owned();
        let mut ssl = Vec::new();
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match tls::PARAMETERS.contains(&decode(key).as_str()) {
                true => ssl.push((decode(key), decode(value))),
                false => rest.push(pair),
            }
        }
        let url = match rest.is_empty() {
            true => base.to_string(),
            false => format!("{base}?{}", rest.join("&")),
        };
        // The parser's own message may quote the URL, password and all: say only what is wrong.
        let mut config = Config::from_str(&url).map_err(
            |_| "not a valid PostgreSQL URL (postgres://user:password@host:port/dbname)",
        )?;
        if config.get_hosts().is_empty() {
            return Err("the URL names no host".into());
        }
        let tls = tls::Settings::from_parameters(&ssl, config.get_hosts())?;
        config.ssl_mode(tls.wire_mode());
        Ok(DatabaseUrl { config, tls })
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatabaseUrl({})", self.target())
    }
}

impl DatabaseUrl {
    /// `host:port/dbname`, for messages.
    pub fn target(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            Some(Host::Unix(path)) => path.display().to_string(),
            None => "localhost".into(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let db = self
            .config
            .get_dbname()
            .or(self.config.get_user())
            .unwrap_or("postgres");
        format!("{host}:{port}/{db}")
    }

    /// The TLS connector this URL's connections share (its CA and certificate files read now),
    /// and the [`tls::Link`] that says what their handshakes were.
    pub fn tls(&self) -> StoreResult<(MakeRustlsConnect, tls::Link)> {
        self.tls.connector().map_err(|why| {
            StoreError::Unavailable(format!(
                "cannot connect to PostgreSQL at {}: {why}",
                self.target()
            ))
        })
    }

    /// `err`, a failure to connect, in words: a TLS failure says why and what to pass instead.
    pub fn explain(&self, err: &tokio_postgres::Error) -> String {
        tls::explain(err, self.tls.mode).unwrap_or_else(|| describe(err))
    }

    /// Settings every connection shares: time limits and keepalives, so that a database that
    /// vanished is noticed instead of waited on for ever. A request sent and not acknowledged
    /// within `timeout` closes its connection (`tcp_user_timeout`), as does an idle connection
    /// whose peer stopped answering keepalives.
    pub(super) fn connection_config(&self, timeout: Duration) -> Config {
        let mut config = self.config.clone();
        config
            .connect_timeout(timeout)
            .tcp_user_timeout(timeout)
            .keepalives_idle(KEEPALIVE_IDLE)
            .keepalives_interval(Duration::from_secs(2))
            .keepalives_retries(3)
            .application_name("tokctl-server");
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_and_the_rest_goes_to_tokio_postgres_as_it_came() {
        let url: DatabaseUrl = "postgres://u:p%40ss@db.example.com:6543/app?sslmode=verify-ca\
             &sslrootcert=%2Fetc%2Fca%20bundle.pem&application_name=a%2Bb&options=-c%20x%3Dy"
            .parse()
            .unwrap();
        assert_eq!(url.tls.mode, tls::SslMode::VerifyCa);
        assert_eq!(url.tls.roots, tls::Roots::File("/etc/ca bundle.pem".into()));
        assert_eq!(url.config.get_application_name(), Some("a+b"));
        assert_eq!(url.config.get_options(), Some("-c x=y"));
        assert_eq!(url.config.get_password(), Some(&b"p@ss"[..]));
        assert_eq!(url.target(), "db.example.com:6543/app");
    }

    #[test]
    fn a_bad_tls_parameter_is_refused_without_the_password() {
        for query in [
            "sslmode=verify",
            "sslcert=/c.pem",
            "sslrootcert=system&sslmode=prefer",
        ] {
            let err = format!("postgres://u:hunter2@h/db?{query}")
                .parse::<DatabaseUrl>()
                .err()
                .unwrap();
            assert!(err.contains("ssl") && !err.contains("hunter2"), "{err}");
        }
    }
}
