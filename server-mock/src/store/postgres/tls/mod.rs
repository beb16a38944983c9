//! TLS to PostgreSQL with libpq's meaning of the URL (rustls, no OpenSSL): `sslmode`
//! (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`), `sslrootcert` (a CA file, or
//! `system` for the platform's roots), `sslcert` and `sslkey` (a client certificate).
//!
//! Secure by default: a URL naming no `sslmode` gets `verify-full` when any host is not on this
//! machine, and `prefer` on loopback. Unix sockets never use TLS, as with libpq. Where libpq
//! reads `~/.postgresql/root.crt`, this server uses the platform's roots.
//!
//! Every connection reports its handshake to [`Link`], which says in words what the
//! connection is: `TLS 1.3, certificate verified for db.example.com`, or `not encrypted`.

mod explain;
mod link;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use tokio_postgres::config::{Host, SslMode as WireMode};
use tokio_postgres_rustls::MakeRustlsConnect;

pub use explain::explain;
pub use link::Link;
use link::Verifier;

/// libpq's `sslmode`, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// TLS when the server offers it, the certificate unchecked; plain otherwise.
    Prefer,
    /// TLS always, the certificate unchecked (checked against `sslrootcert` when one is named,
    /// as libpq does).
    Require,
    /// TLS, the certificate signed by a trusted CA, whatever host name it holds.
    VerifyCa,
    /// TLS, the certificate signed by a trusted CA and issued for the host connected to.
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<Self, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            // `allow` tries plain first: a downgrade this server does not offer.
            _ => {
                return Err(
                    "sslmode must be disable, prefer, require, verify-ca or verify-full".into(),
                );
            }
        })
    }

    fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// Where trusted CA certificates come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roots {
    /// The platform's store (`SSL_CERT_FILE` and `SSL_CERT_DIR` move it, as for OpenSSL).
    Platform,
    /// A PEM file of CA certificates (`sslrootcert=FILE`).
    File(PathBuf),
}

/// The TLS settings of a database URL, read from its query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The mode in force, named or chosen.
    pub mode: SslMode,
    /// Whether the URL named the mode.
    explicit: bool,
    /// The trusted CAs of the verifying modes.
    pub roots: Roots,
    /// A client certificate chain and its key (`sslcert`, `sslkey`), PEM files.
    client: Option<(PathBuf, PathBuf)>,
    /// Whether every host is a unix socket (never TLS).
    socket: bool,
}

/// The TLS parameters a database URL may carry, as libpq names them.
pub const PARAMETERS: [&str; 4] = ["sslmode", "sslrootcert", "sslcert", "sslkey"];

impl Settings {
    /// Reads the TLS parameters (`name`, `value` pairs of [`PARAMETERS`]) for a URL whose
    /// hosts are `hosts`.
    pub fn from_parameters(params: &[(String, String)], hosts: &[Host]) -> Result<Self, String> {
        let get = |name: &str| {
            params
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
        };
        let named = get("sslmode").map(SslMode::parse).transpose()?;
        let roots = match get("sslrootcert") {
            None | Some("") => None,
            Some("system") => Some(Roots::Platform),
            Some(file) => Some(Roots::File(PathBuf::from(file))),
        };
        let client = match (get("sslcert"), get("sslkey")) {
            (None, None) => None,
            (Some(cert), Some(key)) => Some((PathBuf::from(cert), PathBuf::from(key))),
            (Some(_), None) => {
                return Err("sslcert needs sslkey (the client certificate's key)".into());
            }
            (None, Some(_)) => return Err("sslkey needs sslcert (the client certificate)".into()),
        };
        let socket = hosts.iter().all(|host| matches!(host, Host::Unix(_)));
        let on_this_machine = hosts.iter().all(|host| match host {
            Host::Tcp(name) => is_loopback(name),
            Host::Unix(_) => true,
        });
        let mode = match named {
            Some(mode) => mode,
            // libpq's rule: naming the platform's roots asks for verify-full.
            None if roots == Some(Roots::Platform) => SslMode::VerifyFull,
            None if on_this_machine => SslMode::Prefer,
            None => SslMode::VerifyFull,
        };
        if roots == Some(Roots::Platform) && mode != SslMode::VerifyFull {
            // libpq's rule: trusting every public CA means nothing without the host name check.
            return Err("sslrootcert=system needs sslmode=verify-full".into());
        }
        Ok(Settings {
            mode,
            explicit: named.is_some(),
            roots: roots.unwrap_or(Roots::Platform),
            client,
            socket,
        })
    }

    /// The mode tokio-postgres negotiates with; the checks of the certificate are
    /// [`Settings::connector`]'s.
    pub fn wire_mode(&self) -> WireMode {
        match self.mode {
            // libpq uses no TLS on a unix socket, whatever the mode.
            _ if self.socket => WireMode::Disable,
            SslMode::Disable => WireMode::Disable,
            SslMode::Prefer => WireMode::Prefer,
            _ => WireMode::Require,
        }
    }

    /// How certificates are checked: `require` with a named CA file checks the chain, as
    /// libpq does.
    fn check(&self) -> Check {
        match self.mode {
            SslMode::Disable | SslMode::Prefer => Check::Nothing,
            SslMode::Require if matches!(self.roots, Roots::File(_)) => Check::Chain,
            SslMode::Require => Check::Nothing,
            SslMode::VerifyCa => Check::Chain,
            SslMode::VerifyFull => Check::ChainAndName,
        }
    }

    /// The connector every connection of a pool shares, reading the CA and client certificate
    /// files now; its [`Link`] tells what the last handshake was.
    pub fn connector(&self) -> Result<(MakeRustlsConnect, Link), String> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let check = self.check();
        let webpki = match check {
            Check::Nothing => None,
            Check::Chain | Check::ChainAndName => {
                let roots = Arc::new(self.root_store()?);
                let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                    .build()
                    .map_err(|err| format!("cannot use the CA certificates: {err}"))?;
                Some(verifier)
            }
        };
        let link = Link {
            mode: self.mode,
            explicit: self.explicit,
            socket: self.socket,
            check,
            seen: Arc::default(),
        };
        let verifier = Arc::new(Verifier {
            check,
            webpki,
            provider: provider.clone(),
            seen: link.seen.clone(),
        });
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|err| format!("TLS: {err}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let config = match &self.client {
            None => builder.with_no_client_auth(),
            Some((cert, key)) => {
                let chain = read_certificates(cert, "sslcert")?;
                let key = read_key(key)?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|err| format!("cannot use sslcert and sslkey together: {err}"))?
            }
        };
        Ok((MakeRustlsConnect::new(config), link))
    }

    fn root_store(&self) -> Result<RootCertStore, String> {
        let mut store = RootCertStore::empty();
        match &self.roots {
            Roots::File(path) => {
                for cert in read_certificates(path, "sslrootcert")? {
                    store.add(cert).map_err(|err| {
                        format!(
                            "sslrootcert {} holds a bad certificate: {err}",
                            path.display()
                        )
                    })?;
                }
            }
            Roots::Platform => {
                let found = rustls_native_certs::load_native_certs();
                store.add_parsable_certificates(found.certs);
                if store.is_empty() {
                    return Err("the platform has no trusted CA certificates: pass \
                                sslrootcert=FILE (e.g. the provider's CA bundle)"
                        .into());
                }
            }
        }
        Ok(store)
    }
}

/// Whether `host` names this machine (`localhost`, 127.0.0.0/8, `::1`).
fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn read_certificates(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path)
        .map_err(|err| format!("cannot read {what} {}: {err}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("{what} {} is not PEM: {err}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{what} {} holds no certificate", path.display()));
    }
    Ok(certs)
}

/// The client certificate's key, refused when others may read it (libpq's rule: 0600 or
/// stricter, or 0640 when root owns it).
fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let shown = path.display();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta =
            std::fs::metadata(path).map_err(|err| format!("cannot read sslkey {shown}: {err}"))?;
        let loose = match meta.uid() {
            0 => meta.mode() & 0o037,
            _ => meta.mode() & 0o077,
        };
        if loose != 0 {
            return Err(format!(
                "sslkey {shown} may be read by others (mode {:o}): chmod 600 it",
                meta.mode() & 0o777
            ));
        }
    }
    let pem = std::fs::read(path).map_err(|err| format!("cannot read sslkey {shown}: {err}"))?;
    PrivateKeyDer::from_pem_slice(&pem)
        .map_err(|_| format!("sslkey {shown} holds no PEM private key"))
}

/// What a certificate must satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Nothing,
    Chain,
    ChainAndName,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(query: &[(&str, &str)], host: &str) -> Result<Settings, String> {
        let params: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_parameters(&params, &[Host::Tcp(host.into())])
    }

    #[test]
    fn no_sslmode_verifies_fully_off_this_machine_and_prefers_tls_on_loopback() {
        let remote = settings(&[], "db.example.com").unwrap();
        assert_eq!(
            (remote.mode, &remote.roots),
            (SslMode::VerifyFull, &Roots::Platform)
        );
        for host in ["127.0.0.1", "127.8.0.1", "localhost", "::1", "[::1]"] {
            assert_eq!(settings(&[], host).unwrap().mode, SslMode::Prefer, "{host}");
        }
        let socket = Settings::from_parameters(&[], &[Host::Unix("/run/postgresql".into())]);
        assert_eq!(socket.unwrap().mode, SslMode::Prefer);
        let mixed = Settings::from_parameters(
            &[],
            &[Host::Tcp("127.0.0.1".into()), Host::Tcp("10.0.0.7".into())],
        );
        assert_eq!(mixed.unwrap().mode, SslMode::VerifyFull);
    }

    #[test]
    fn an_explicit_sslmode_always_wins() {
        for (mode, expected) in [
            ("disable", SslMode::Disable),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
            ("verify-ca", SslMode::VerifyCa),
            ("verify-full", SslMode::VerifyFull),
        ] {
            let remote = settings(&[("sslmode", mode)], "db.example.com").unwrap();
            let local = settings(&[("sslmode", mode)], "127.0.0.1").unwrap();
            assert_eq!((remote.mode, local.mode), (expected, expected));
        }
        assert!(settings(&[("sslmode", "allow")], "h").is_err());
    }

    #[test]
    fn require_checks_the_chain_only_when_a_ca_file_is_named() {
        let plain = settings(&[("sslmode", "require")], "h").unwrap();
        assert_eq!(plain.check(), Check::Nothing);
        let with_ca = settings(&[("sslmode", "require"), ("sslrootcert", "/ca.pem")], "h");
        assert_eq!(with_ca.unwrap().check(), Check::Chain);
        assert_eq!(
            settings(&[("sslmode", "verify-ca")], "h").unwrap().check(),
            Check::Chain
        );
        assert_eq!(settings(&[], "h").unwrap().check(), Check::ChainAndName);
    }

    #[test]
    fn system_roots_need_verify_full_and_a_certificate_needs_its_key() {
        let system = settings(&[("sslrootcert", "system")], "127.0.0.1").unwrap();
        assert_eq!(system.mode, SslMode::VerifyFull);
        let weak = settings(&[("sslrootcert", "system"), ("sslmode", "require")], "h");
        assert_eq!(
            weak.unwrap_err(),
            "sslrootcert=system needs sslmode=verify-full"
        );
        assert!(settings(&[("sslcert", "/c.pem")], "h").is_err());
        assert!(settings(&[("sslkey", "/k.pem")], "h").is_err());
        assert!(settings(&[("sslcert", "/c.pem"), ("sslkey", "/k.pem")], "h").is_ok());
    }

    #[test]
    fn unix_sockets_and_disable_never_use_tls() {
        let verify = [("sslmode".to_string(), "verify-full".to_string())];
        let socket = Settings::from_parameters(&verify, &[Host::Unix("/run".into())]);
        assert_eq!(socket.unwrap().wire_mode(), WireMode::Disable);
        let tcp = settings(&[("sslmode", "verify-full")], "h").unwrap();
        assert_eq!(tcp.wire_mode(), WireMode::Require);
        let disable = settings(&[("sslmode", "disable")], "h").unwrap();
        assert_eq!(disable.wire_mode(), WireMode::Disable);
        assert_eq!(
            settings(&[], "127.0.0.1").unwrap().wire_mode(),
            WireMode::Prefer
        );
    }
}
