//! `--output sarif`: findings as a SARIF 2.1.0 log, the format GitHub code scanning and other
//! tools import. One rule per kind of credential (tokctl's two, then each provider's); locations
//! are relative URIs for relative paths.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokctl_sdk::secrets::providers::PROVIDERS;
use tokctl_sdk::secrets::{Credential, Kind};

use super::Finding;

/// Everything but unreserved characters and `/` is escaped in a path's URI.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Every kind of credential a scan reports, in the order of the rules.
fn kinds() -> impl Iterator<Item = Credential> {
    [
        Credential::Tokctl(Kind::Token),
        Credential::Tokctl(Kind::ApiKey),
    ]
    .into_iter()
    .chain(PROVIDERS.iter().map(Credential::Provider))
}

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
                    "rules": kinds().map(rule).collect::<Vec<_>>(),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": findings.iter().map(result).collect::<Vec<_>>(),
        }]
    })
}

/// A kind's rule id: `tokctl/leaked-token`, `tokctl/leaked-openai-api-key`.
fn rule_id(kind: Credential) -> String {
    format!("tokctl/leaked-{}", kind.id().replace('_', "-"))
}

fn rule(kind: Credential) -> Value {
    let what = kind.name();
    let name: String = format!("leaked_{}", kind.id())
        .split('_')
        .map(|word| word[..1].to_uppercase() + &word[1..])
        .collect();
    let (found, help, precision) = match kind {
        Credential::Tokctl(_) => (
            format!("A {what} with a valid checksum was found."),
            "Revoke it at once (`tokctl scan --revoke`, which needs no API key), remove it from \
             the code and its history, and give what used it a new credential."
                .to_string(),
            "very-high",
        ),
        Credential::Provider(provider) => (
            format!(
                "Something shaped like a {what} was found (it carries no checksum to confirm it)."
            ),
            format!(
                "Revoke it where it was issued ({}), remove it from the code and its history, \
                 and give what used it a new key. tokctl cannot revoke it.",
                provider.revoke_at
            ),
            "high",
        ),
    };
    json!({
        "id": rule_id(kind),
        "name": name,
        "shortDescription": { "text": format!("A {what} is in the code") },
        "fullDescription": {
            "text": format!("{found} Anyone who reads it can use it until it is revoked.")
        },
        "help": { "text": help },
        "defaultConfiguration": { "level": "error" },
        "properties": {
            "tags": ["security", "secret"],
            "precision": precision,
            "security-severity": "9.0",
        }
    })
}

fn result(finding: &Finding) -> Value {
    let uri = uri(&finding.path);
    let kind = finding.kind;
    let secret = finding.secret.expose();
    let mut result = json!({
        "ruleId": rule_id(kind),
        "ruleIndex": kinds().position(|k| k == kind).unwrap_or(0),
        "level": "error",
        "message": {
            "text": format!("{} {} leaked here", kind.name(), finding.masked),
        },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": uri },
                "region": {
                    "startLine": finding.line,
                    "startColumn": finding.column,
                    "endColumn": finding.column + secret.chars().count() as u64,
                }
            }
        }],
        // Stable across runs and line moves, so one leak stays one alert; not the secret's
        // digest that the server looks credentials up by.
        "partialFingerprints": { "tokctlSecret/v1": fingerprint(secret) },
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
