//! Why a connection's TLS failed, in a user's words, with what to pass instead.

use rustls::CertificateError;

use super::SslMode;

/// Why a connection's TLS failed, in a user's words with what to do, when `err` is a TLS
/// failure; `None` otherwise.
pub fn explain(err: &tokio_postgres::Error, mode: SslMode) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(current) = cause {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(tls_words(tls));
        }
        cause = match current.downcast_ref::<std::io::Error>() {
            // An I/O error hides the error it wraps from `source`: TLS failures travel so.
            Some(io) => io
                .get_ref()
                .map(|inner| inner as &(dyn std::error::Error + 'static)),
            None => current.source(),
        };
    }
    let text = err.to_string();
    if text.contains("server does not support TLS") {
        return Some(format!(
            "the server does not accept TLS, which sslmode={} needs (a server on a trusted \
             network may take sslmode=disable)",
            mode.name()
        ));
    }
    let said = err.as_db_error()?.message();
    let hint = if said.contains("no encryption") && mode == SslMode::Disable {
        "the server accepts only TLS connections; drop sslmode=disable"
    } else if said.contains("client certificate") {
        "the server asks for a client certificate: pass sslcert=FILE and sslkey=FILE"
    } else {
        return None;
    };
    Some(format!(
        "{}: {hint}",
        crate::store::postgres::error::describe(err)
    ))
}

fn tls_words(err: &rustls::Error) -> String {
    const HINT: &str = "pass sslrootcert=FILE (e.g. the provider's CA bundle) or, knowingly, \
                        sslmode=require";
    let rustls::Error::InvalidCertificate(cert) = err else {
        return format!("TLS handshake failed: {err}");
    };
    match cert {
        CertificateError::UnknownIssuer => format!(
            "TLS certificate not trusted: unknown CA (the server's certificate is not signed by \
             a CA this server trusts); {HINT}"
        ),
        CertificateError::NotValidForName => {
            "TLS certificate not trusted: wrong host name (the certificate is for another \
             host); connect by a name it holds, or use sslmode=verify-ca"
                .into()
        }
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "TLS certificate not trusted: wrong host name (the certificate is for {}, not {}); \
             connect by a name it holds, or use sslmode=verify-ca",
            match presented.as_slice() {
                [] => "no host name".to_string(),
                names => names
                    .iter()
                    .map(|name| bare_name(name))
                    .collect::<Vec<_>>()
                    .join(", "),
            },
            expected.to_str()
        ),
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            let when = match cert {
                CertificateError::ExpiredContext { not_after, .. } => {
                    chrono::DateTime::from_timestamp(not_after.as_secs() as i64, 0)
                        .map(|at| format!(" on {}", at.format("%Y-%m-%d %H:%M:%S UTC")))
                        .unwrap_or_default()
                }
                _ => String::new(),
            };
            format!("TLS certificate not trusted: expired{when} (the server must renew it)")
        }
        other => format!("TLS certificate not trusted: {other}; {HINT}"),
    }
}

/// `localhost` of rustls's `DnsName("localhost")` (a presented name, as it writes them).
fn bare_name(presented: &str) -> &str {
    presented
        .split_once("(\"")
        .and_then(|(_, rest)| rest.strip_suffix("\")"))
        .unwrap_or(presented)
}
