//! Webhook signing secrets must be recoverable to sign, so they are stored sealed
//! (XChaCha20-Poly1305) with a key kept in its own file (mode 0600): `webhook.key` in the data
//! directory, or the file `--webhook-key-file` names, which every instance sharing a database
//! must be given. The stored data carries a value sealed with the key (a key check), so an
//! instance started with another key refuses to start instead of failing every delivery.

use std::path::Path;

use anyhow::Context;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

/// File name of the sealing key in the data directory.
pub const KEY_FILE: &str = "webhook.key";

/// What the key check seals.
const KEY_CHECK: &[u8] = b"tokctl webhook key check";

/// Seals and opens endpoint secrets.
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl Sealer {
    /// Loads the key at `path`, creating it (32 random bytes, mode 0600) when there is none.
    /// Instances creating it at once end up with one key: it is written aside and linked into
    /// place, which fails for all but the first.
    pub fn load_or_create(path: &Path) -> anyhow::Result<Self> {
        if !path.exists() {
            create(path)?;
        }
        Sealer::load(path)
    }

    /// Loads the key at `path`, which must exist.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let key = std::fs::read(path)
            .with_context(|| format!("cannot read the webhook key {}", path.display()))?;
        let cipher = XChaCha20Poly1305::new_from_slice(&key)
            .map_err(|_| anyhow::anyhow!("{} must hold 32 bytes", path.display()))?;
        Ok(Sealer { cipher })
    }

    /// The key check to store with data sealed by this key (see [`Sealer::check`]).
    pub fn key_check(&self) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(KEY_CHECK)
    }

    /// Whether `stored` is a key check made with this key.
    pub fn opens_check(&self, stored: &[u8]) -> bool {
        self.open(stored).as_deref() == Some(KEY_CHECK)
    }

    /// Refuses to go on when this key is not the one the stored secrets are sealed with (the
    /// first instance to start stores its key check; every later one must match it).
    /// `stored` is the key check the database holds (see [`Sealer::key_check`]); `path` names
    /// the key file for the message.
    pub fn check(&self, stored: &[u8], path: &Path) -> anyhow::Result<()> {
        if !self.opens_check(stored) {
            anyhow::bail!(
                "the webhook key in {} is not the key the stored webhook secrets are sealed with; \
                 start every instance sharing this database with the same --webhook-key-file",
                path.display()
            );
        }
        Ok(())
    }

    /// `nonce || ciphertext` of `secret`.
    pub fn seal(&self, secret: &str) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(secret.as_bytes())
    }

    fn seal_bytes(&self, plain: &[u8]) -> anyhow::Result<Vec<u8>> {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(|e| anyhow::anyhow!("random source: {e}"))?;
        let sealed = self
            .cipher
            .encrypt(&XNonce::from(nonce), plain)
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

/// Writes a new random key to `path` unless another process got there first (then its key
/// stays).
fn create(path: &Path) -> anyhow::Result<()> {
    let mut key = vec![0u8; 32];
    getrandom::fill(&mut key).map_err(|e| anyhow::anyhow!("random source: {e}"))?;
    let aside = path.with_extension(format!("new-{}", std::process::id()));
    crate::files::write_private_bytes(&aside, &key)?;
    let linked = std::fs::hard_link(&aside, path);
    let _ = std::fs::remove_file(&aside);
    match linked {
        Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => {
            Err(err).with_context(|| format!("cannot create {}", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_and_is_not_stored_in_plain_text() {
        let dir = std::env::temp_dir().join(format!("seal-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sealer = Sealer::load_or_create(&dir.join(KEY_FILE)).unwrap();
        let sealed = sealer.seal("whsec_topsecret").unwrap();
        assert!(!sealed.windows(15).any(|w| w == b"whsec_topsecret"));
        assert_eq!(sealer.open(&sealed).unwrap(), b"whsec_topsecret");
        let again = Sealer::load_or_create(&dir.join(KEY_FILE)).unwrap();
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
