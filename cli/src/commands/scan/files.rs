//! Scanning files, directories and stdin: directories are walked on every core (honouring
//! .gitignore, skipping binaries), and each stream is read in 1 MiB chunks into one buffer per
//! thread, so memory stays flat whatever the file sizes.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{WalkBuilder, WalkState};
use tokctl_sdk::secrets::{self, Kind, SECRET_LEN};

use super::{Covered, Finding};
use crate::error::CliError;

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;
/// A file with a NUL byte in its first 8 KiB is binary, as git and ripgrep decide.
const BINARY_PROBE: usize = 8 << 10;

/// Scans `paths` (`-` is stdin); `ignore` honours .gitignore and .ignore files.
pub fn scan(paths: &[PathBuf], ignore: bool) -> Result<(Vec<Finding>, Covered), CliError> {
    let findings = Mutex::new(Vec::new());
    let files = AtomicU64::new(0);
    let bytes = AtomicU64::new(0);
    let mut roots = Vec::new();
    for path in paths {
        if path == Path::new("-") {
            let mut buf = Vec::new();
            let stdin = io::stdin().lock();
            let scanned = scan_stream(stdin, &mut buf, |hit| {
                lock(&findings).push(hit.finding("-".into()));
            })
            .map_err(|err| CliError::new(format!("cannot read stdin: {err}")))?;
            files.fetch_add(1, Ordering::Relaxed);
            bytes.fetch_add(scanned.unwrap_or(0), Ordering::Relaxed);
        } else if path.symlink_metadata().is_err() {
            return Err(CliError::new(format!(
                "{}: no such file or directory",
                path.display()
            )));
        } else {
            roots.push(path);
        }
    }
    let Some((first, rest)) = roots.split_first() else {
        return Ok((into_inner(findings), covered(files, bytes)));
    };
    let mut walk = WalkBuilder::new(first);
    for root in rest {
        walk.add(root);
    }
    walk.hidden(false)
        .git_ignore(ignore)
        .git_global(ignore)
        .git_exclude(ignore)
        .ignore(ignore)
        .parents(ignore)
        // The repository's own store is history, which --git-history reads properly.
        .filter_entry(|entry| entry.file_name() != ".git");
    walk.build_parallel().run(|| {
        let mut buf = Vec::new();
        let (findings, files, bytes) = (&findings, &files, &bytes);
        Box::new(move |entry| {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    eprintln!("tokctl: warning: {err}");
                    return WalkState::Continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path();
            let scanned = std::fs::File::open(path).and_then(|file| {
                scan_stream(file, &mut buf, |hit| {
                    lock(findings).push(hit.finding(display(path)));
                })
            });
            match scanned {
                Ok(Some(n)) => {
                    files.fetch_add(1, Ordering::Relaxed);
                    bytes.fetch_add(n, Ordering::Relaxed);
                }
                Ok(None) => {}
                Err(err) => eprintln!("tokctl: warning: cannot read {}: {err}", path.display()),
            }
            WalkState::Continue
        })
    });
    Ok((into_inner(findings), covered(files, bytes)))
}

fn covered(files: AtomicU64, bytes: AtomicU64) -> Covered {
    Covered {
        files: files.into_inner(),
        bytes: bytes.into_inner(),
        commits: None,
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn into_inner<T>(mutex: Mutex<T>) -> T {
    mutex.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// A path as people write it: without a leading `./`.
fn display(path: &Path) -> String {
    path.strip_prefix(".")
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// A secret found in a stream.
pub struct Hit<'a> {
    pub line: u64,
    pub column: u64,
    pub kind: Kind,
    pub secret: &'a str,
}

impl Hit<'_> {
    pub fn finding(&self, path: String) -> Finding {
        Finding::new(path, self.line, self.column, self.kind, self.secret)
    }
}

/// Scans one stream, calling `on_hit` for each secret; `None` when it looks binary, else the
/// number of bytes read. Lines are counted only as far as a secret or a chunk's end needs.
pub fn scan_stream(
    mut reader: impl Read,
    buf: &mut Vec<u8>,
    mut on_hit: impl FnMut(Hit<'_>),
) -> io::Result<Option<u64>> {
    buf.resize(CHUNK, 0);
    let mut kept = 0; // bytes carried over from the last chunk, at the start of `buf`
    let mut line = 1; // line number at `buf[0]`
    let mut column_base = 0; // characters of that line before `buf[0]`
    let mut total = 0u64;
    loop {
        let (end, eof) = fill(&mut reader, buf, kept)?;
        if total == 0 && memchr::memchr(0, &buf[..end.min(BINARY_PROBE)]).is_some() {
            return Ok(None);
        }
        total += (end - kept) as u64;
        let data = &buf[..end];
        // A secret starting in the last 39 bytes may be cut off: it is read in the next chunk.
        let limit = if eof { end } else { end - (SECRET_LEN - 1) };
        let mut counted = 0;
        for found in secrets::find(data) {
            if found.offset >= limit {
                break;
            }
            line += newlines(&data[counted..found.offset]);
            counted = found.offset;
            let before = &data[..found.offset];
            let column = match memchr::memrchr(b'\n', before) {
                Some(at) => chars(&before[at + 1..]),
                None => column_base + chars(before),
            };
            on_hit(Hit {
                line,
                column: column + 1,
                kind: found.kind,
                secret: found.secret,
            });
        }
        if eof {
            return Ok(Some(total));
        }
        line += newlines(&data[counted..limit]);
        column_base = match memchr::memrchr(b'\n', &data[..limit]) {
            Some(at) => chars(&data[at + 1..limit]),
            None => column_base + chars(&data[..limit]),
        };
        buf.copy_within(limit..end, 0);
        kept = end - limit;
    }
}

/// Reads until `buf` is full or the stream ends; returns the end of the data and whether the
/// stream ended.
fn fill(reader: &mut impl Read, buf: &mut [u8], mut at: usize) -> io::Result<(usize, bool)> {
    while at < buf.len() {
        match reader.read(&mut buf[at..]) {
            Ok(0) => return Ok((at, true)),
            Ok(n) => at += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok((at, false))
}

/// Newlines in `bytes` (a loop the compiler turns into SIMD).
fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Characters in UTF-8 `bytes`: every byte that does not continue a character.
pub(super) fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(n: usize) -> String {
        let random: String = (0..30)
            .map(|i| char::from(secrets::BASE62[(i * 7 + n) % 62]))
            .collect();
        secrets::seal(Kind::Token, &random)
    }

    fn hits(text: &[u8]) -> Vec<(u64, u64, String)> {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        scan_stream(text, &mut buf, |hit| {
            out.push((hit.line, hit.column, hit.secret.to_string()))
        })
        .unwrap();
        out
    }

    #[test]
    fn lines_and_columns_across_chunk_boundaries() {
        // Secrets placed to straddle each chunk boundary, on long lines, after multibyte text.
        let mut text = Vec::new();
        let mut expected = Vec::new();
        let mut line = 1;
        for n in 0..6 {
            let boundary = CHUNK * (n + 1) - (SECRET_LEN - 1) + n * 7;
            while text.len() + 5 < boundary {
                text.extend_from_slice(if text.len() % 3000 == 0 { b"\n" } else { b"a" });
            }
            line = 1 + newlines(&text);
            let column = match memchr::memrchr(b'\n', &text) {
                Some(at) => chars(&text[at + 1..]),
                None => chars(&text),
            };
            text.extend_from_slice("é".as_bytes());
            let s = secret(n);
            expected.push((line, column + 2, s.clone()));
            text.extend_from_slice(s.as_bytes());
        }
        assert!(line > 1);
        assert_eq!(hits(&text), expected);
    }

    #[test]
    fn binary_streams_are_skipped() {
        let mut text = b"\0binary".to_vec();
        text.extend_from_slice(secret(1).as_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            scan_stream(&text[..], &mut buf, |_| panic!()).unwrap(),
            None
        );
        assert_eq!(hits(secret(2).as_bytes()).len(), 1);
    }
}
