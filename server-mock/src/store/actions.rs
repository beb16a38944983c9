//! The actions an audit entry records, as `action` shows them and the filter takes them.

/// A token was created.
pub const TOKEN_CREATED: &str = "token.created";
/// A token's secret was replaced.
pub const TOKEN_ROTATED: &str = "token.rotated";
/// A token was revoked.
pub const TOKEN_REVOKED: &str = "token.revoked";
/// A token's spending limit was set, changed or removed (the entry's details say from what to
/// what).
pub const TOKEN_LIMIT_CHANGED: &str = "token.limit_changed";
/// An API key was created through the API.
pub const KEY_CREATED: &str = "key.created";
/// An API key was revoked.
pub const KEY_REVOKED: &str = "key.revoked";
/// Someone signed in to the dashboard with an API key.
pub const SESSION_STARTED: &str = "session.started";
/// Someone signed out of the dashboard.
pub const SESSION_ENDED: &str = "session.ended";
/// A webhook endpoint was added.
pub const WEBHOOK_CREATED: &str = "webhook.created";
/// A webhook endpoint was deleted.
pub const WEBHOOK_DELETED: &str = "webhook.deleted";
/// The workspace's x402 terms were set or changed.
pub const X402_UPDATED: &str = "x402.updated";
/// The workspace's x402 terms were removed: it takes no x402 payments.
pub const X402_DISABLED: &str = "x402.disabled";
/// The workspace's settings changed (the entry's details name the field, its value before
/// and after).
pub const SETTINGS_UPDATED: &str = "settings.updated";
/// A request was refused: revoked or expired credential, missing scope, escalation.
pub const AUTH_DENIED: &str = "auth.denied";

/// Every action above.
pub const ALL: [&str; 14] = [
    TOKEN_CREATED,
    TOKEN_ROTATED,
    TOKEN_REVOKED,
    TOKEN_LIMIT_CHANGED,
    KEY_CREATED,
    KEY_REVOKED,
    SESSION_STARTED,
    SESSION_ENDED,
    WEBHOOK_CREATED,
    WEBHOOK_DELETED,
    X402_UPDATED,
    X402_DISABLED,
    SETTINGS_UPDATED,
    AUTH_DENIED,
];
