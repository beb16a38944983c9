//! What failed when the server called out (a gateway upstream, a webhook receiver), in words
//! for the log, `route_reason` and the deliveries log: refused, reset, timed out, the TLS
//! certificate, the TLS handshake, or the HTTP exchange.

use std::error::Error;
use std::io;

/// An HTTP/1.1 exchange over an open connection that failed.
pub fn http(err: &hyper::Error) -> String {
    if err.is_closed() || err.is_incomplete_message() {
        return "the upstream closed the connection without answering".into();
    }
    format!("HTTP exchange failed: {}", chain(err))
}

/// A reqwest request that failed: the most telling cause in its chain.
pub fn request(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "timed out".into();
    }
    let mut cause: Option<&(dyn Error + 'static)> = Some(err);
    while let Some(current) = cause {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return tls_words(tls);
        }
        cause = match current.downcast_ref::<io::Error>() {
            Some(io) if io.kind() != io::ErrorKind::Other && io.get_ref().is_none() => {
                return io_words(io);
            }
            // An I/O error hides the error it wraps from `source`: TLS failures travel so.
            Some(io) => match io.get_ref() {
                Some(inner) => Some(inner as &(dyn Error + 'static)),
                None => return io_words(io),
            },
            None => current.source(),
        };
    }
    if err.is_connect() {
        format!("connection failed: {}", chain(err))
    } else {
        format!("request failed: {}", chain(err))
    }
}

fn tls_words(err: &rustls::Error) -> String {
    match err {
        rustls::Error::InvalidCertificate(_) => format!("TLS certificate rejected: {err}"),
        _ => format!("TLS handshake failed: {err}"),
    }
}

/// An I/O error (connecting, reading, writing), in words.
pub fn io_words(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused".into(),
        io::ErrorKind::ConnectionReset => "connection reset".into(),
        io::ErrorKind::TimedOut => "timed out".into(),
        io::ErrorKind::UnexpectedEof => "the upstream closed the connection".into(),
        _ => format!("connection failed: {err}"),
    }
}

/// An error and its causes, joined with `: `, repeats left out.
pub fn chain(err: &(dyn Error + 'static)) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut cause = Some(err);
    while let Some(current) = cause {
        let text = current.to_string();
        if !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        cause = current.source();
    }
    words.join(": ")
}
