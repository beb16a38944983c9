//! `--output sarif`: findings as a SARIF 2.1.0 log, the format GitHub code scanning and other
//! tools import. One rule per kind of secret; locations are relative URIs for relative paths.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokctl_sdk::secrets::Kind;

use super::Finding;

/// Everything but unreserved characters and `/` is escaped in a path's URI.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

const KINDS: [Kind; 2] = [Kind::Token, Kind::ApiKey];

/// The SARIF log of `findings`.
pub fn report(findings: &[Finding]) -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "tokctl",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": KINDS.map(rule),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": findings.iter().map(result).collect::<Vec<_>>(),
        }]
    })
}

/// A kind's rule id, rule name, description and name in a result's message.
fn describe(kind: Kind) -> (&'static str, &'static str, &'static str, &'static str) {
    match kind {
        Kind::Token => (
            "tokctl/leaked-token",
            "LeakedToken",
            "A tokctl token secret (tkt_)",
            "Token secret",
        ),
        Kind::ApiKey => (
            "tokctl/leaked-api-key",
            "LeakedApiKey",
            "A tokctl workspace API key (tka_)",
            "API key",
        ),
    }
}

fn rule(kind: Kind) -> Value {
    let (id, name, what, _) = describe(kind);
    json!({
        "id": id,
        "name": name,
        "shortDescription": { "text": format!("{what} is in the code") },
        "fullDescription": {
            "text": format!("{what} with a valid checksum was found. Anyone who reads it can act with its scopes until it is revoked.")
        },
        "help": {
            "text": "Revoke it at once (`tokctl scan --revoke`, which needs no API key), remove it from the code and its history, and give what used it a new credential.",
        },
        "defaultConfiguration": { "level": "error" },
        "properties": {
            "tags": ["security", "secret"],
            "precision": "very-high",
            "security-severity": "9.0",
        }
    })
}

fn result(finding: &Finding) -> Value {
    let uri = uri(&finding.path);
    let (rule_id, _, _, kind) = describe(finding.kind);
    let mut result = json!({
        "ruleId": rule_id,
        "ruleIndex": KINDS.iter().position(|k| *k == finding.kind).unwrap_or(0),
        "level": "error",
        "message": {
            "text": format!("{kind} {} leaked here", finding.masked),
        },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": uri },
                "region": {
                    "startLine": finding.line,
                    "startColumn": finding.column,
                    "endColumn": finding.column + tokctl_sdk::secrets::SECRET_LEN as u64,
                }
            }
        }],
        // Stable across runs and line moves, so one leak stays one alert; not the secret's
        // digest that the server looks credentials up by.
        "partialFingerprints": { "tokctlSecret/v1": fingerprint(finding.secret.expose()) },
    });
    if let Some(commit) = &finding.commit {
        result["properties"] = json!({ "commit": commit });
    }
    result
}

fn uri(path: &str) -> String {
    if path == "-" {
        return "stdin".into();
    }
    let path = path.replace('\\', "/");
    let encoded = utf8_percent_encode(&path, PATH).to_string();
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn fingerprint(secret: &str) -> String {
    let digest = Sha256::digest(format!("tokctl-sarif-fingerprint:{secret}").as_bytes());
    hex::encode(&digest[..16])
}
