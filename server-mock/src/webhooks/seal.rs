//! Webhook signing secrets must be recoverable to sign, so they are stored sealed
//! (XChaCha20-Poly1305) with a key kept in its own file, `webhook.key` (mode 0600), in the data
//! directory, never in plain text beside the data.

use std::path::Path;

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

/// File name of the sealing key.
pub const KEY_FILE: &str = "webhook.key";

/// Seals and opens endpoint secrets.
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl Sealer {
    /// Loads `DIR/webhook.key`, creating it (32 random bytes, mode 0600) on first use.
    pub fn load_or_create(data_dir: &Path) -> anyhow::Result<Self> {
        let path = data_dir.join(KEY_FILE);
        let key = match std::fs::read(&path) {
            Ok(key) => key,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let mut key = vec![0u8; 32];
                getrandom::fill(&mut key).map_err(|e| anyhow::anyhow!("random source: {e}"))?;
                crate::admin::write_private_bytes(&path, &key)?;
                key
            }
            Err(err) => anyhow::bail!("cannot read {}: {err}", path.display()),
        };
        let cipher = XChaCha20Poly1305::new_from_slice(&key)
            .map_err(|_| anyhow::anyhow!("{} must hold 32 bytes", path.display()))?;
        Ok(Sealer { cipher })
    }

    /// `nonce || ciphertext` of `secret`.
    pub fn seal(&self, secret: &str) -> anyhow::Result<Vec<u8>> {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(|e| anyhow::anyhow!("random source: {e}"))?;
        let sealed = self
            .cipher
            .encrypt(&XNonce::from(nonce), secret.as_bytes())
            .map_err(|_| anyhow::anyhow!("sealing failed"))?;
        Ok([nonce.as_slice(), &sealed].concat())
    }

    /// The secret sealed in `sealed`; `None` if it was not sealed with this key.
    pub fn open(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < 24 {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().ok()?;
        self.cipher.decrypt(&XNonce::from(nonce), ciphertext).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_and_is_not_stored_in_plain_text() {
        let dir = std::env::temp_dir().join(format!("seal-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sealer = Sealer::load_or_create(&dir).unwrap();
        let sealed = sealer.seal("whsec_topsecret").unwrap();
        assert!(!sealed.windows(15).any(|w| w == b"whsec_topsecret"));
        assert_eq!(sealer.open(&sealed).unwrap(), b"whsec_topsecret");
        let again = Sealer::load_or_create(&dir).unwrap();
        assert_eq!(
            again.open(&sealed).unwrap(),
            b"whsec_topsecret",
            "the key file is reused"
        );
        let mut tampered = sealed.clone();
        tampered[30] ^= 1;
        assert!(sealer.open(&tampered).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
