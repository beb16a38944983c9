"""Mutations of `tokctl scan`'s providers' keys (issue 40, point 1's "key shapes that `tokctl
scan` knows"): each breaks one rule; `bench/mutate.py` shows that the named tests then fail.
(name, file, text, replacement, cargo test arguments)
"""

F = "cli/src/commands/scan/files.rs"
L = "secrets/src/"
SCAN = "-p tokctl --bin tokctl scan"
E2E = "-p tokctl --test scan"
SEC = "-p tokctl-secrets"
M = [
 ("the next chunk searches on from the last hit's end", F, "from = searched.min(end) - keep;", "from = 0;", SCAN),
 ("the carried bytes start a byte early, as context", F, "let keep = limit - 1;", "let keep = limit;", SCAN),
 ("a hit in the carried bytes waits for the next chunk", F, "if leak.offset >= limit {\n                break;", "if leak.offset >= end {\n                break;", SCAN),
 ("the carry covers the longest keys", F, "const CARRY: usize = 256;", "const CARRY: usize = 40;", SCAN),
 ("a key starts after a word boundary", L + "providers.rs", '.map(|p| format!("(?-u:\\\\b)(?:{})", p.pattern))', '.map(|p| format!("(?:{})", p.pattern))', SEC),
 ("Anthropic's sk-ant- told from OpenAI's sk-", L + "providers.rs", 'id: "anthropic_api_key",', 'id: "openai_api_key",', SEC),
 ("the two streams merge in the text's order", L + "leaks.rs", "(Some(a), Some(b)) if b.offset < a.offset => self.1.next(),", "(Some(_), Some(_)) => self.0.next(),", SEC),
 ("providers' keys are not sent for revocation", "cli/src/commands/scan/mod.rs", ".partition(|f| matches!(f.kind, Credential::Tokctl(_)));", ".partition(|_| true);", "-p tokctl --test scan_revoke revoke_reports"),
 ("SARIF's rule index is the rule's", "cli/src/commands/scan/sarif.rs", '"ruleIndex": kinds().position(|k| k == kind).unwrap_or(0),', '"ruleIndex": 0,', E2E + " sarif_output"),
]
