//! What went wrong on the wire, in words: why a connection could not be made (refused, timed
//! out, host not found, TLS), or why one broke. Read from the error's chain of causes, because
//! reqwest's own text ("error sending request") names none of them.

use std::error::Error as StdError;
use std::io;

use crate::error::{ConnectCause, Error};

/// The SDK's error for a request that reqwest could not complete against `url` (the base URL
/// shown to the user).
pub(crate) fn error(err: reqwest::Error, url: &str) -> Error {
    if err.is_connect() {
        return Error::Connect {
            url: url.to_string(),
            cause: if err.is_timeout() {
                ConnectCause::TimedOut
            } else {
                connect_cause(&err)
            },
        };
    }
    if err.is_timeout() {
        return Error::Timeout;
    }
    Error::Transport {
        url: url.to_string(),
        reason: broken(&err),
        source: err.without_url(),
    }
}

/// Why a connection attempt failed, from the causes of `err`.
pub(crate) fn connect_cause(err: &(dyn StdError + 'static)) -> ConnectCause {
    let mut cause = Some(err);
    while let Some(current) = cause {
        #[cfg(feature = "rustls")]
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return ConnectCause::Tls(match tls {
                rustls::Error::InvalidCertificate(_) => format!("TLS certificate rejected: {tls}"),
                _ => format!("TLS handshake failed: {tls}"),
            });
        }
        if let Some(io) = current.downcast_ref::<io::Error>() {
            match io.kind() {
                io::ErrorKind::ConnectionRefused => return ConnectCause::Refused,
                io::ErrorKind::TimedOut => return ConnectCause::TimedOut,
                _ => {}
            }
            // An I/O error hides the error it wraps from `source`: TLS failures travel so.
            match io.get_ref() {
                Some(inner) => {
                    cause = Some(inner as &(dyn StdError + 'static));
                    continue;
                }
                None => return ConnectCause::Other(io.to_string()),
            }
        }
        // hyper-util's connector says "dns error" and puts the resolver's words under it.
        if current.to_string() == "dns error" {
            let why = current
                .source()
                .map_or_else(|| "no address".to_string(), chain);
            return ConnectCause::HostNotFound(why);
        }
        cause = current.source();
    }
    ConnectCause::Other(chain(err))
}

/// Why an open connection failed, from the causes of `err`.
fn broken(err: &(dyn StdError + 'static)) -> String {
    let mut cause = Some(err);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<io::Error>() {
            match io.kind() {
                io::ErrorKind::ConnectionReset => return "connection reset".into(),
                io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof => {
                    return "the server closed the connection".into();
                }
                _ => {}
            }
        }
        cause = current.source();
    }
    chain(err)
}

/// An error and its causes joined with `: `, each only once (reqwest and hyper repeat
/// themselves), without reqwest's "for url (...)".
pub(crate) fn chain(err: &(dyn StdError + 'static)) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut cause = Some(err);
    while let Some(current) = cause {
        let text = current.to_string();
        let text = match text.split_once(" for url (") {
            Some((head, _)) => head.to_string(),
            None => text,
        };
        if !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        cause = current.source();
    }
    words.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a message and an optional cause, as hyper-util builds its chains.
    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<dyn StdError + Send + Sync>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl StdError for Layer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            self.1.as_deref().map(|e| e as &(dyn StdError + 'static))
        }
    }

    fn wrapped(inner: impl StdError + Send + Sync + 'static) -> Layer {
        Layer(
            "client error (Connect)",
            Some(Box::new(Layer("tcp connect error", Some(Box::new(inner))))),
        )
    }

    #[test]
    fn each_cause_is_named_from_deep_in_the_chain() {
        let refused = wrapped(io::Error::from(io::ErrorKind::ConnectionRefused));
        assert_eq!(connect_cause(&refused), ConnectCause::Refused);
        let timed_out = wrapped(io::Error::from(io::ErrorKind::TimedOut));
        assert_eq!(connect_cause(&timed_out), ConnectCause::TimedOut);
        let dns = Layer(
            "client error (Connect)",
            Some(Box::new(Layer(
                "dns error",
                Some(Box::new(io::Error::other(
                    "failed to lookup address information: Name or service not known",
                ))),
            ))),
        );
        assert_eq!(
            connect_cause(&dns).to_string(),
            "host not found (failed to lookup address information: Name or service not known)"
        );
        let unreachable = wrapped(io::Error::from(io::ErrorKind::NetworkUnreachable));
        assert_eq!(
            connect_cause(&unreachable).to_string(),
            "network unreachable"
        );
    }

    #[cfg(feature = "rustls")]
    #[test]
    fn tls_failures_inside_an_io_error_are_named() {
        let certificate =
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let tls = wrapped(io::Error::new(io::ErrorKind::InvalidData, certificate));
        assert!(
            connect_cause(&tls)
                .to_string()
                .starts_with("TLS certificate rejected: "),
            "{}",
            connect_cause(&tls)
        );
        let handshake = wrapped(io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::HandshakeNotComplete,
        ));
        assert!(
            connect_cause(&handshake)
                .to_string()
                .starts_with("TLS handshake failed: ")
        );
    }

    #[test]
    fn a_chain_says_each_thing_once_without_the_url() {
        let err = Layer(
            "error sending request for url (http://127.0.0.1:1/v1/tokens)",
            Some(Box::new(Layer(
                "connection closed before message completed",
                None,
            ))),
        );
        assert_eq!(
            chain(&err),
            "error sending request: connection closed before message completed"
        );
    }
}
