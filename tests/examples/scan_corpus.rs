//! Writes the text tree `bench/scan.sh` scans: about SIZE_MB of logs, source files and JSON
//! in nested directories, with secrets planted at known places (two thirds made by the server's
//! own generator, a third providers' keys of every shape `tokctl scan` knows), and near misses
//! (a changed character, a wrong checksum, a truncated secret, the other kind's prefix, a
//! provider key too short or glued to a word) that a scanner must not report.
//!
//!   cargo run --release -p tokctl-e2e --example scan_corpus -- DIR SIZE_MB PLANTED
//!
//! Prints nothing; writes `DIR/tree/...`, `DIR/planted.tsv` (path, line, masked secret) and
//! `DIR/pattern.txt`, every shape as one regular expression, for ripgrep.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use tokctl_sdk::secrets;
use tokctl_sdk::secrets::providers::{self, Provider};
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
    "sk-",
    "sk",
    "AKIA",
    "gh",
    "hf_",
    "task-list",
    "xox",
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
                let (secret, masked) = match rng.below(3) {
                    0 => provider_key(&mut rng),
                    kind => {
                        let secret = new_secret(if kind == 1 {
                            CredentialKind::Token
                        } else {
                            CredentialKind::ApiKey
                        });
                        let masked = secrets::mask(secret.expose());
                        (secret.expose().to_string(), masked)
                    }
                };
                text.push_str(" Authorization: Bearer ");
                text.push_str(&secret);
                writeln!(manifest, "{rel}\t{line}\t{masked}").unwrap();
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
    std::fs::write(dir.join("pattern.txt"), rg_pattern())?;
    std::fs::write(dir.join("planted.tsv"), manifest)
}

/// What ripgrep searches for: tokctl's shape (no checksum) or any provider's.
fn rg_pattern() -> String {
    format!("tk[ta]_[0-9A-Za-z]{{36}}|{}", providers::pattern())
}

/// `n` random characters of `alphabet`.
fn random(rng: &mut Rng, alphabet: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
        .collect()
}

/// A made-up key of a provider drawn at random, and its masked form.
fn provider_key(rng: &mut Rng) -> (String, String) {
    let b62 = secrets::BASE62.as_slice();
    let upper = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let key = match rng.below(11) {
        0 => format!("sk-ant-api03-{}AA", random(rng, b62, 93)),
        1 => format!("sk-proj-{}", random(rng, b62, 156)),
        2 => format!("AKIA{}", random(rng, upper, 16)),
        3 => format!("ghp_{}", random(rng, b62, 36)),
        4 => format!(
            "github_pat_11{}_{}",
            random(rng, b62, 20),
            random(rng, b62, 59)
        ),
        5 => format!("AIza{}", random(rng, b62, 35)),
        6 => format!(
            "xoxb-{}-{}",
            random(rng, b"0123456789", 12),
            random(rng, b62, 24)
        ),
        7 => format!("sk_live_{}", random(rng, b62, 99)),
        8 => format!("gsk_{}", random(rng, b62, 52)),
        9 => format!("hf_{}", random(rng, b62, 34)),
        _ => format!("xai-{}", random(rng, b62, 80)),
    };
    let masked = Provider::of(&key).expect("a provider's shape").mask(&key);
    (key, masked)
}

/// Something shaped like a secret that is not one.
fn near_miss(rng: &mut Rng) -> String {
    let secret = new_secret(CredentialKind::Token);
    let secret = secret.expose();
    let b62 = secrets::BASE62.as_slice();
    match rng.below(7) {
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
        3 => {
            let tail = random(rng, b62, 6);
            format!("{}{tail}", &secret[..34])
        }
        // A provider's key too short.
        4 => format!("sk-proj-{}", random(rng, b62, 11)),
        5 => format!("AKIA{}", random(rng, b"ABCDEFGHIJ", 15)),
        // Glued to the word before it.
        _ => format!("mask-{}", random(rng, b62, 30)),
    }
}
