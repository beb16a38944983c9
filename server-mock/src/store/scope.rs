//! The scopes a credential holds, as records carry them and the wire names them.

/// A permission a credential holds. `GET /v1/scopes` lists them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    TokensRead,
    TokensWrite,
    TokensRotate,
    TokensRevoke,
    AuditRead,
    WebhooksRead,
    WebhooksWrite,
    ChatWrite,
    UsageRead,
    KeysRead,
    KeysWrite,
    X402Read,
    X402Write,
    RequestsRead,
    SettingsRead,
    SettingsWrite,
}

impl Scope {
    /// Every scope, in the order `GET /v1/scopes` lists them.
    pub const ALL: [Scope; 16] = [
        Scope::TokensRead,
        Scope::TokensWrite,
        Scope::TokensRotate,
        Scope::TokensRevoke,
        Scope::AuditRead,
        Scope::WebhooksRead,
        Scope::WebhooksWrite,
        Scope::ChatWrite,
        Scope::UsageRead,
        Scope::KeysRead,
        Scope::KeysWrite,
        Scope::X402Read,
        Scope::X402Write,
        Scope::RequestsRead,
        Scope::SettingsRead,
        Scope::SettingsWrite,
    ];

    /// The wire name, e.g. `tokens:read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::TokensRead => "tokens:read",
            Scope::TokensWrite => "tokens:write",
            Scope::TokensRotate => "tokens:rotate",
            Scope::TokensRevoke => "tokens:revoke",
            Scope::AuditRead => "audit:read",
            Scope::WebhooksRead => "webhooks:read",
            Scope::WebhooksWrite => "webhooks:write",
            Scope::ChatWrite => "chat:write",
            Scope::UsageRead => "usage:read",
            Scope::KeysRead => "keys:read",
            Scope::KeysWrite => "keys:write",
            Scope::X402Read => "x402:read",
            Scope::X402Write => "x402:write",
            Scope::RequestsRead => "requests:read",
            Scope::SettingsRead => "settings:read",
            Scope::SettingsWrite => "settings:write",
        }
    }

    /// What the scope allows, in words.
    pub fn description(self) -> &'static str {
        match self {
            Scope::TokensRead => "List tokens and read a token (never its secret).",
            Scope::TokensWrite => "Create tokens with a subset of the caller's own scopes.",
            Scope::TokensRotate => "Replace a token's secret.",
            Scope::TokensRevoke => "Revoke a token permanently.",
            Scope::AuditRead => "Read the workspace audit log.",
            Scope::WebhooksRead => "List webhook endpoints and their deliveries.",
            Scope::WebhooksWrite => "Create, test and delete webhook endpoints.",
            Scope::ChatWrite => "Use the chat completions gateway.",
            Scope::UsageRead => "Read the workspace credit ledger.",
            Scope::KeysRead => "List the workspace's API keys (never their secrets).",
            Scope::KeysWrite => {
                "Create API keys with a subset of the caller's own scopes, and revoke API keys."
            }
            Scope::X402Read => "Read the workspace's x402 terms and its agents' payments.",
            Scope::X402Write => "Set or remove the workspace's x402 terms.",
            Scope::RequestsRead => "Read the gateway's request log.",
            Scope::SettingsRead => {
                "Read the workspace's settings (whether the request log keeps bodies)."
            }
            Scope::SettingsWrite => {
                "Change the workspace's settings (whether the request log keeps bodies)."
            }
        }
    }

    /// Parses a wire name; `None` for a name that is not a scope.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// Parses a space-separated scope list as stored; unknown names (from a newer server) are skipped.
pub fn parse_stored(list: &str) -> Vec<Scope> {
    list.split_whitespace().filter_map(Scope::parse).collect()
}

/// Formats scopes for storage, space-separated.
pub fn format_stored(scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
