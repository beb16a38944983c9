//! One server per SQLite data directory.
//!
//! SQLite itself lets several processes share a database, but a server keeps credentials and
//! tokens cached in memory and trusts that cache: a second process on the same directory would
//! go on accepting a secret revoked through the first. So a server on SQLite holds an exclusive
//! OS lock (`flock`) on `DATA_DIR/server.lock` for its whole life; the kernel lets go of it on
//! any exit, SIGKILL included, so a crash never leaves a stale lock behind. The file says who
//! holds it (PID and address), for the message a second start gets. Several instances share one
//! PostgreSQL database instead (`--database-url`), and take no lock.
//!
//! The `admin` commands that add workspaces and keys take no lock: a running server reads
//! credentials from storage, so they work beside it. Copying the directory elsewhere
//! (`copy-to-postgres`) takes the lock, so no server changes it during the copy.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "server.lock";

/// The lock on a data directory, held until dropped.
#[derive(Debug)]
pub struct DataDirLock {
    file: File,
}

/// Why a data directory could not be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it.
    Held {
        /// The data directory.
        dir: PathBuf,
        /// Who, as far as its lock file says.
        holder: Holder,
    },
    /// The lock file could not be opened or locked.
    Io {
        /// The lock file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

/// What the holder wrote into the lock file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its process id, when written.
    pub pid: Option<u32>,
    /// The address it serves on, once it listens.
    pub address: Option<String>,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pid {
            Some(pid) => write!(f, "PID {pid}")?,
            None => f.write_str("PID unknown")?,
        }
        match &self.address {
            Some(address) => write!(f, ", {address}"),
            None => f.write_str(", still starting"),
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Held { dir, holder } => write!(
                f,
                "the data directory {} is in use by another tokctl-server ({holder})",
                dir.display()
            ),
            LockError::Io { path, source } => write!(f, "cannot lock {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

impl DataDirLock {
    /// Takes the lock on `dir` (which must exist) and records this process as its holder, or
    /// says who holds it. Never waits.
    pub fn acquire(dir: &Path) -> Result<DataDirLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io_error = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut options = OpenOptions::new();
        // Never truncate before the lock is won: the holder's record is what a loser reads.
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    dir: dir.to_path_buf(),
                    holder: Holder::read(&mut file),
                });
            }
            Err(TryLockError::Error(err)) => return Err(io_error(err)),
        }
        let mut lock = DataDirLock { file };
        lock.record(&Holder {
            pid: Some(std::process::id()),
            address: None,
        })
        .map_err(io_error)?;
        Ok(lock)
    }

    /// Records the address this server listens on, for a second start's message.
    pub fn serving(&mut self, addr: SocketAddr) -> io::Result<()> {
        self.record(&Holder {
            pid: Some(std::process::id()),
            address: Some(format!("http://{addr}")),
        })
    }

    fn record(&mut self, holder: &Holder) -> io::Result<()> {
        let mut text = String::new();
        if let Some(pid) = holder.pid {
            text.push_str(&format!("pid {pid}\n"));
        }
        if let Some(address) = &holder.address {
            text.push_str(&format!("address {address}\n"));
        }
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(text.as_bytes())
    }
}

impl Holder {
    /// What a lock file says; whatever it lacks or garbles is left unknown.
    fn read(file: &mut File) -> Holder {
        let mut text = String::new();
        if file.read_to_string(&mut text).is_err() {
            return Holder::default();
        }
        let mut holder = Holder::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", pid)) => holder.pid = pid.trim().parse().ok(),
                Some(("address", address)) => holder.address = Some(address.trim().to_string()),
                _ => {}
            }
        }
        holder
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_until_the_first_goes() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = DataDirLock::acquire(dir.path()).unwrap();
        first.serving("127.0.0.1:8080".parse().unwrap()).unwrap();
        match DataDirLock::acquire(dir.path()) {
            Err(LockError::Held { holder, .. }) => assert_eq!(
                holder,
                Holder {
                    pid: Some(std::process::id()),
                    address: Some("http://127.0.0.1:8080".into()),
                }
            ),
            other => panic!("expected the lock to be held: {other:?}"),
        }
        drop(first);
        assert!(DataDirLock::acquire(dir.path()).is_ok());
    }
}
