//! Scanning files, directories and stdin: directories are walked on every core (honouring
//! .gitignore, skipping binaries), and each stream is read in 1 MiB chunks into one buffer per
//! thread, so memory stays flat whatever the file sizes.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{WalkBuilder, WalkState};
use tokctl_sdk::secrets::{self, Credential};

use super::{Covered, Finding};
use crate::error::CliError;

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;
/// A credential starting in a chunk's last CARRY bytes may be cut off, so it is left to the
/// next chunk, which starts with those bytes: longer than any credential known (a tokctl secret
/// is 40 characters, the longest provider keys about 200).
const CARRY: usize = 256;
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
    pub kind: Credential,
    pub secret: &'a str,
}

impl Hit<'_> {
    pub fn finding(&self, path: String) -> Finding {
        Finding::new(path, self.line, self.column, self.kind, self.secret)
    }
}

/// Scans one stream, calling `on_hit` for each credential; `None` when it looks binary, else
/// the number of bytes read. Lines are counted only as far as a hit or a chunk's end needs.
pub fn scan_stream(
    mut reader: impl Read,
    buf: &mut Vec<u8>,
    mut on_hit: impl FnMut(Hit<'_>),
) -> io::Result<Option<u64>> {
    buf.resize(CHUNK, 0);
    let mut kept = 0; // bytes carried over from the last chunk, at the start of `buf`
    let mut from = 0; // where this chunk's search starts: what is before it was searched
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
        let limit = if eof { end } else { end - CARRY };
        let mut counted = 0;
        let mut searched = limit; // where the next chunk's search starts, in this one
        for leak in secrets::find_leaks_at(data, from) {
            if leak.offset >= limit {
                break;
            }
            line += newlines(&data[counted..leak.offset]);
            counted = leak.offset;
            let before = &data[..leak.offset];
            let column = match memchr::memrchr(b'\n', before) {
                Some(at) => chars(&before[at + 1..]),
                None => column_base + chars(before),
            };
            on_hit(Hit {
                line,
                column: column + 1,
                kind: leak.credential,
                secret: leak.secret,
            });
            searched = searched.max(leak.offset + leak.secret.len());
        }
        if eof {
            return Ok(Some(total));
        }
        // The next chunk starts a byte before `limit`, which its search reads as context only.
        let keep = limit - 1;
        line += newlines(&data[counted..keep]);
        column_base = match memchr::memrchr(b'\n', &data[..keep]) {
            Some(at) => chars(&data[at + 1..keep]),
            None => column_base + chars(&data[..keep]),
        };
        buf.copy_within(keep..end, 0);
        kept = end - keep;
        from = searched.min(end) - keep;
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

    use tokctl_sdk::secrets::Kind;

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

    /// Line, column and text of every credential in `text` read whole, counted plainly.
    fn whole(text: &[u8]) -> Vec<(u64, u64, String)> {
        secrets::find_leaks(text)
            .map(|leak| {
                let before = &text[..leak.offset];
                let line_start = memchr::memrchr(b'\n', before).map_or(0, |at| at + 1);
                let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
                let column = 1 + std::str::from_utf8(&before[line_start..])
                    .unwrap()
                    .chars()
                    .count();
                (line, column as u64, leak.secret.to_string())
            })
            .collect()
    }

    #[test]
    fn chunks_find_what_the_whole_text_holds_where_it_is() {
        // Credentials of every length placed across each chunk's end (where one is cut off) and
        // at its limit (where the carried bytes start), on long lines after multibyte text; at
        // the limit, three providers' keys glued to a letter just where the next chunk starts,
        // which the whole text does not count as keys.
        let long_key = format!("sk-proj-{}", "Ab3dEf6hIj9kLm2nOp5q".repeat(8));
        let shape = |n: usize| -> String {
            match n % 4 {
                0 => secret(n),
                1 => "AKIAIOSFODNN7EXAMPLE".to_string(),
                2 => long_key.clone(),
                _ => "ghp_0123456789abcdefghijABCDEFGHIJ012345".to_string(),
            }
        };
        // Where each chunk's credential starts, from its end.
        for back in [300, 150, CARRY + 1, CARRY, CARRY - 1, 20] {
            let mut text = Vec::new();
            let mut glued = 0;
            for k in 0..4 {
                let at = k * (CHUNK - CARRY - 1) + CHUNK - back;
                while text.len() + 3 < at {
                    text.extend_from_slice(if text.len() % 5000 == 0 { b"\n" } else { b"a" });
                }
                text.extend_from_slice("é".as_bytes());
                // Not the last (a tokctl secret, which needs no word boundary).
                let glue = back == CARRY && k < 3;
                text.push(if glue { b'x' } else { b' ' });
                glued += usize::from(glue);
                text.extend_from_slice(shape(k + back + 1).as_bytes());
                text.push(b' ');
            }
            let expected = whole(&text);
            assert_eq!(expected.len(), 4 - glued, "{back}");
            assert!(expected.iter().any(|(line, ..)| *line > 1));
            assert_eq!(hits(&text), expected, "{back}");
        }
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
