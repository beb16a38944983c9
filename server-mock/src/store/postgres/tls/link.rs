//! What a connector's connections are, in words, as their handshakes went: the verifier that
//! checks each server certificate as the mode asks also notes the protocol version and the
//! name it checked, for [`Link::describe`].

use std::fmt;
use std::sync::{Arc, Mutex};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use super::{Check, SslMode};

/// What the last handshake of a connector was, in words.
#[derive(Clone)]
pub struct Link {
    pub(super) mode: SslMode,
    pub(super) explicit: bool,
    pub(super) socket: bool,
    pub(super) check: Check,
    pub(super) seen: Arc<Mutex<Option<Handshake>>>,
}

/// A handshake's version and the name the certificate was checked for.
#[derive(Debug, Clone, Default)]
pub(super) struct Handshake {
    version: Option<&'static str>,
    server: String,
}

impl Link {
    /// `TLS 1.3, certificate verified for db.example.com`, `TLS 1.2, certificate not verified
    /// (sslmode=require)`, `not encrypted`, ...: the last connection made.
    pub fn describe(&self) -> String {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let Some(handshake) = seen else {
            return match (self.mode, self.explicit) {
                _ if self.socket => "not encrypted (a unix socket)".into(),
                (SslMode::Disable, _) => "not encrypted (sslmode=disable)".into(),
                (SslMode::Prefer, true) => {
                    "not encrypted (sslmode=prefer, and the server offers no TLS)".into()
                }
                _ => "not encrypted (the server offers no TLS; on loopback it is only preferred)"
                    .into(),
            };
        };
        let version = handshake.version.unwrap_or("TLS");
        match self.check {
            Check::ChainAndName => {
                format!("{version}, certificate verified for {}", handshake.server)
            }
            Check::Chain => format!(
                "{version}, certificate chain verified, host name not checked (sslmode={})",
                self.mode.name()
            ),
            Check::Nothing => format!(
                "{version}, certificate not verified (sslmode={})",
                self.mode.name()
            ),
        }
    }
}

impl fmt::Debug for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Checks the server's certificate as the mode asks, and notes each handshake for [`Link`].
#[derive(Debug)]
pub(super) struct Verifier {
    pub(super) check: Check,
    pub(super) webpki: Option<Arc<WebPkiServerVerifier>>,
    pub(super) provider: Arc<CryptoProvider>,
    pub(super) seen: Arc<Mutex<Option<Handshake>>>,
}

impl Verifier {
    fn note(&self, note: impl FnOnce(&mut Handshake)) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        note(seen.get_or_insert_with(Handshake::default));
    }
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(webpki) = &self.webpki {
            let checked = webpki.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            );
            match checked {
                Ok(_) => {}
                // The chain is checked before the name: a wrong name means a trusted chain.
                Err(rustls::Error::InvalidCertificate(
                    CertificateError::NotValidForName
                    | CertificateError::NotValidForNameContext { .. },
                )) if self.check == Check::Chain => {}
                Err(err) => return Err(err),
            }
        }
        self.note(|h| {
            h.server = server_name.to_str().into_owned();
            h.version = None;
        });
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.note(|h| h.version = Some("TLS 1.2"));
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.note(|h| h.version = Some("TLS 1.3"));
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
