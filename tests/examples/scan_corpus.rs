//! Writes the text tree `bench/scan.sh` scans: about SIZE_MB of logs, source files and JSON
//! in nested directories, with secrets made by the server's own generator planted at known
//! places, and near misses (a changed character, a wrong checksum, a truncated secret, the
//! other kind's prefix) that a scanner must not report.
//!
//!   cargo run --release -p tokctl-e2e --example scan_corpus -- DIR SIZE_MB PLANTED
//!
//! Prints nothing; writes `DIR/tree/...` and `DIR/planted.tsv` (path, line, masked secret).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use tokctl_sdk::secrets;
use tokctl_server::secrets::{CredentialKind, new_secret};

const FILE_SIZE: usize = 1 << 20;

const WORDS: &[&str] = &[
    "token",
    "rotate",
    "revoke",
    "request",
    "gtk",
    "atk",
    "tk",
    "tkt",
    "tka",
    "stk_",
    "_tk",
    "workspace",
    "user",
    "error",
    "warn",
    "info",
    "latency_ms",
    "GET",
    "POST",
    "/v1/tokens",
    "status",
    "200",
    "404",
    "let",
    "fn",
    "return",
    "self",
    "value",
    "0x7f3a",
    "é",
    "naïve",
    "データ",
    "key",
    "secret",
    "Bearer",
    "Authorization:",
    "=",
    "{",
    "}",
    "(",
    ")",
    ";",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: fast, and reproducible from its seed.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, size_mb, planted] = args.as_slice() else {
        eprintln!("usage: scan_corpus DIR SIZE_MB PLANTED");
        std::process::exit(2);
    };
    let dir = Path::new(dir);
    let files = size_mb.parse::<usize>().expect("SIZE_MB") * 1_000_000 / FILE_SIZE;
    let planted: usize = planted.parse().expect("PLANTED");
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    // Which files get a secret: `planted` draws, so some files hold two or more.
    let mut plan = vec![0usize; files];
    for _ in 0..planted {
        plan[rng.below(files)] += 1;
    }
    let mut manifest = String::new();
    let mut text = String::with_capacity(FILE_SIZE + 4096);
    for (n, &secrets_here) in plan.iter().enumerate() {
        let rel = format!(
            "tree/d{:02}/s{:02}/f{n:05}.{}",
            n % 23,
            n % 7,
            ["log", "rs", "json"][n % 3]
        );
        text.clear();
        let mut line = 1;
        let mut to_plant = secrets_here;
        while text.len() < FILE_SIZE || to_plant > 0 {
            let words = 4 + rng.below(16);
            for w in 0..words {
                if w > 0 {
                    text.push(' ');
                }
                text.push_str(WORDS[rng.below(WORDS.len())]);
            }
            // A full file that still owes secrets gets them on its last lines.
            let full = text.len() >= FILE_SIZE;
            if to_plant > 0 && (full || rng.below(2000) == 0) {
                let secret = new_secret(if rng.below(2) == 0 {
                    CredentialKind::Token
                } else {
                    CredentialKind::ApiKey
                });
                text.push_str(" Authorization: Bearer ");
                text.push_str(secret.expose());
                writeln!(
                    manifest,
                    "{rel}\t{line}\t{}",
                    secrets::mask(secret.expose())
                )
                .unwrap();
                to_plant -= 1;
            } else if rng.below(2000) == 0 {
                write!(text, " {}", near_miss(&mut rng)).unwrap();
            }
            text.push('\n');
            line += 1;
        }
        let path = dir.join(&rel);
        std::fs::create_dir_all(path.parent().expect("a parent"))?;
        std::fs::File::create(&path)?.write_all(text.as_bytes())?;
    }
    std::fs::write(dir.join("planted.tsv"), manifest)
}

/// Something shaped like a secret that is not one.
fn near_miss(rng: &mut Rng) -> String {
    let secret = new_secret(CredentialKind::Token);
    let secret = secret.expose();
    match rng.below(4) {
        // One character changed.
        0 => {
            let at = 4 + rng.below(36);
            let b = secret.as_bytes()[at];
            let other = if b == b'x' { "y" } else { "x" };
            format!("{}{other}{}", &secret[..at], &secret[at + 1..])
        }
        // Truncated.
        1 => secret[..39].to_string(),
        // The other kind's prefix.
        2 => secret.replacen("tkt_", "tka_", 1),
        // Random characters where the checksum goes.
        _ => {
            let tail: String = (0..6)
                .map(|_| char::from(secrets::BASE62[rng.below(62)]))
                .collect();
            format!("{}{tail}", &secret[..34])
        }
    }
}
