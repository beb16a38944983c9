//! The PostgreSQL schema's migrations, applied in order by [`super::schema::migrate`]. The
//! tables match the SQLite schema's (`store/sqlite/migrations.rs`).

/// Migrations in order; never edit one that has shipped, append a new one.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
    secret_digest  BYTEA NOT NULL UNIQUE,
    scopes         TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    revoked_at     TIMESTAMPTZ
);
CREATE TABLE tokens (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
    name           TEXT NOT NULL,
    secret_digest  BYTEA NOT NULL UNIQUE,
    scopes         TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    expires_at     TIMESTAMPTZ,
    revoked_at     TIMESTAMPTZ,
    last_used_at   TIMESTAMPTZ,
    created_by     TEXT NOT NULL
);
CREATE UNIQUE INDEX tokens_live_name ON tokens(workspace_id, name) WHERE revoked_at IS NULL;
CREATE INDEX tokens_newest ON tokens(workspace_id, created_at DESC, id DESC);
CREATE INDEX tokens_expiring ON tokens(expires_at) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;
CREATE TABLE audit_log (
    seq           BIGSERIAL PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    workspace_id  TEXT NOT NULL,
    action        TEXT NOT NULL,
    actor         TEXT NOT NULL,
    token_id      TEXT,
    request_id    TEXT,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_newest ON audit_log(workspace_id, seq DESC);
CREATE INDEX audit_by_token ON audit_log(workspace_id, token_id, seq DESC);
CREATE TABLE usage_ledger (
    seq                BIGSERIAL PRIMARY KEY,
    id                 TEXT NOT NULL,
    workspace_id       TEXT NOT NULL,
    request_id         TEXT,
    model              TEXT NOT NULL,
    prompt_tokens      BIGINT NOT NULL,
    completion_tokens  BIGINT NOT NULL,
    nanocredits        BIGINT NOT NULL,
    wallet             TEXT,
    created_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX usage_by_time ON usage_ledger(workspace_id, created_at);
CREATE TABLE webhook_endpoints (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    url            TEXT NOT NULL,
    events         TEXT NOT NULL,
    secret_sealed  BYTEA NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    disabled_at    TIMESTAMPTZ,
    deleted_at     TIMESTAMPTZ
);
CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints(workspace_id, created_at DESC);
CREATE TABLE webhook_events (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    type          TEXT NOT NULL,
    body          TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
-- leased_by: the number of the instance attempting the delivery now (see presence.rs);
-- next_attempt_at is then when that lease runs out.
CREATE TABLE webhook_deliveries (
    id               BIGSERIAL PRIMARY KEY,
    event_id         TEXT NOT NULL REFERENCES webhook_events(id),
    endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints(id),
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    leased_by        INTEGER,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(endpoint_id, next_attempt_at)
    WHERE state = 'pending';
CREATE TABLE webhook_attempts (
    id             BIGSERIAL PRIMARY KEY,
    endpoint_id    TEXT NOT NULL,
    event_id       TEXT NOT NULL,
    event_type     TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    status_code    INTEGER,
    error          TEXT,
    duration_ms    BIGINT NOT NULL,
    next_retry_at  TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts(endpoint_id, created_at DESC, id DESC);
CREATE TABLE webhook_expiry_notices (
    token_id  TEXT NOT NULL,
    notice    TEXT NOT NULL,
    PRIMARY KEY (token_id, notice)
);
CREATE TABLE settings (
    name   TEXT PRIMARY KEY,
    value  BYTEA NOT NULL
);
-- Changes to rows that instances cache (credentials, tokens): each transaction that makes one
-- takes the next epoch under the one row's lock, so epochs become visible in order (sync.rs).
CREATE TABLE cache_epoch (n BIGINT NOT NULL);
INSERT INTO cache_epoch VALUES (0);
CREATE TABLE cache_invalidations (
    epoch       BIGINT PRIMARY KEY,
    ids         TEXT[] NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Requests per bucket (workspace or client address) and one-minute window, all instances.
CREATE TABLE rate_windows (
    bucket        TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    used          BIGINT NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE SEQUENCE instance_numbers AS INTEGER CYCLE;
"#,
    // API keys in the API and the dashboard (as SQLite's migration 7), and dashboard sessions.
    r#"
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMPTZ;
ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT 'admin';
UPDATE api_keys SET name = 'key-' || substr(id, 5, 8);
UPDATE api_keys SET name = 'admin' WHERE id IN (
    SELECT (SELECT id FROM api_keys k WHERE k.workspace_id = w.id ORDER BY created_at, id LIMIT 1)
    FROM workspaces w);
CREATE UNIQUE INDEX api_keys_live_name ON api_keys(workspace_id, name) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_newest ON api_keys(workspace_id, created_at DESC, id DESC);
CREATE TABLE dashboard_sessions (
    digest      BYTEA PRIMARY KEY,
    key_id      TEXT NOT NULL REFERENCES api_keys(id),
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_sessions_by_key ON dashboard_sessions(key_id);
"#,
    // x402: a workspace's terms, the nonces of payments used, each payment's settlement (and the
    // outbox of those still to settle). Keys that held every scope (the admin keys) hold the two
    // new ones too.
    r#"
CREATE TABLE x402_settings (
    workspace_id     TEXT PRIMARY KEY,
    pay_to           TEXT NOT NULL,
    network          TEXT NOT NULL,
    asset            TEXT NOT NULL,
    asset_name       TEXT NOT NULL,
    asset_version    TEXT NOT NULL,
    asset_decimals   INTEGER NOT NULL,
    credit_price     TEXT NOT NULL,
    facilitator_url  TEXT NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE TABLE x402_nonces (
    network     TEXT NOT NULL,
    contract    TEXT NOT NULL,
    payer       TEXT NOT NULL,
    nonce       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (network, contract, payer, nonce)
);
CREATE TABLE x402_payments (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL,
    request_id       TEXT,
    usage_id         TEXT,
    model            TEXT,
    scheme           TEXT NOT NULL,
    network          TEXT NOT NULL,
    asset            TEXT NOT NULL,
    payer            TEXT NOT NULL,
    authorized       TEXT NOT NULL,
    amount           TEXT NOT NULL,
    status           TEXT NOT NULL,
    tx_hash          TEXT,
    error            TEXT,
    payment          TEXT NOT NULL,
    requirements     TEXT NOT NULL,
    facilitator_url  TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    expires_at       TIMESTAMPTZ NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    settled_at       TIMESTAMPTZ
);
CREATE INDEX x402_payments_due ON x402_payments(next_attempt_at) WHERE status = 'pending';
CREATE INDEX x402_payments_by_workspace ON x402_payments(workspace_id, created_at);
UPDATE api_keys SET scopes = scopes || ' x402:read x402:write'
WHERE (' ' || scopes || ' ') LIKE '% tokens:read %' AND (' ' || scopes || ' ') LIKE '% tokens:write %' AND (' ' || scopes || ' ') LIKE '% tokens:rotate %' AND (' ' || scopes || ' ') LIKE '% tokens:revoke %' AND (' ' || scopes || ' ') LIKE '% audit:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:write %' AND (' ' || scopes || ' ') LIKE '% chat:write %' AND (' ' || scopes || ' ') LIKE '% usage:read %' AND (' ' || scopes || ' ') LIKE '% keys:read %' AND (' ' || scopes || ' ') LIKE '% keys:write %';
"#,
    // Spending limits (as SQLite's migration 10): each token's limit, the reservations of
    // requests being answered, the notices sent once per period; the ledger names the token of
    // each request, and an audit entry may say what changed. A rotation may leave the secret it
    // replaced working until `previous_expires_at` (API keys share the tokens' columns, always
    // null there).
    r#"
ALTER TABLE usage_ledger ADD COLUMN token_id TEXT;
CREATE INDEX usage_by_token ON usage_ledger(token_id, created_at) WHERE token_id IS NOT NULL;
ALTER TABLE audit_log ADD COLUMN details TEXT;
CREATE TABLE token_limits (
    token_id      TEXT PRIMARY KEY REFERENCES tokens(id),
    credit_limit  BIGINT NOT NULL,
    reset         TEXT NOT NULL,
    since         TIMESTAMPTZ NOT NULL
);
CREATE TABLE spend_holds (
    id           TEXT PRIMARY KEY,
    token_id     TEXT NOT NULL,
    nanocredits  BIGINT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX spend_holds_by_token ON spend_holds(token_id, expires_at);
CREATE TABLE limit_notices (
    token_id      TEXT NOT NULL,
    period_start  TIMESTAMPTZ NOT NULL,
    threshold     INTEGER NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (token_id, period_start, threshold)
);
ALTER TABLE tokens ADD COLUMN previous_digest BYTEA;
ALTER TABLE tokens ADD COLUMN previous_expires_at TIMESTAMPTZ;
CREATE INDEX tokens_previous_digest ON tokens(previous_digest) WHERE previous_digest IS NOT NULL;
ALTER TABLE api_keys ADD COLUMN previous_expires_at TIMESTAMPTZ;
"#,
    // The deployment of the model that answered, when the model lists deployments.
    r#"
ALTER TABLE usage_ledger ADD COLUMN deployment TEXT;
"#,
    // The request log (issue 40): one row per gateway request, newest read first, deleted
    // past its retention by time; keys holding every scope get the new `requests:read`.
    r#"
CREATE TABLE request_log (
    seq              BIGSERIAL PRIMARY KEY,
    id               TEXT NOT NULL,
    workspace_id     TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    credential_id    TEXT,
    endpoint         TEXT NOT NULL,
    model            TEXT,
    routed_model     TEXT,
    deployment       TEXT,
    route_reason     TEXT,
    status           BIGINT NOT NULL,
    error            TEXT,
    stream           BOOLEAN NOT NULL,
    first_token_us   BIGINT,
    total_us         BIGINT NOT NULL,
    prompt_tokens    BIGINT,
    completion_tokens BIGINT,
    cached_tokens    BIGINT,
    nanocredits      BIGINT,
    x402_settled     TEXT,
    session_id       TEXT
);
CREATE INDEX request_log_by_workspace ON request_log(workspace_id, created_at);
CREATE INDEX request_log_by_id ON request_log(workspace_id, id);
CREATE INDEX request_log_by_time ON request_log(created_at);
UPDATE api_keys SET scopes = scopes || ' requests:read'
WHERE (' ' || scopes || ' ') LIKE '% tokens:read %' AND (' ' || scopes || ' ') LIKE '% tokens:write %' AND (' ' || scopes || ' ') LIKE '% tokens:rotate %' AND (' ' || scopes || ' ') LIKE '% tokens:revoke %' AND (' ' || scopes || ' ') LIKE '% audit:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:write %' AND (' ' || scopes || ' ') LIKE '% chat:write %' AND (' ' || scopes || ' ') LIKE '% usage:read %' AND (' ' || scopes || ' ') LIKE '% keys:read %' AND (' ' || scopes || ' ') LIKE '% keys:write %' AND (' ' || scopes || ' ') LIKE '% x402:read %' AND (' ' || scopes || ' ') LIKE '% x402:write %';
"#,
    // The request log's bodies, kept (redacted, capped) when the server is told to.
    r#"
ALTER TABLE request_log ADD COLUMN request_body TEXT;
ALTER TABLE request_log ADD COLUMN response_body TEXT;
"#,
    // Workspaces' settings (issue 40): a row once a workspace chose (`PUT /v1/settings`), none
    // while the server's default applies; keys holding every scope get the new
    // `settings:read` and `settings:write`.
    r#"
CREATE TABLE workspace_settings (
    workspace_id  TEXT PRIMARY KEY,
    store_bodies  BOOLEAN NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
UPDATE api_keys SET scopes = scopes || ' settings:read settings:write'
WHERE (' ' || scopes || ' ') LIKE '% tokens:read %' AND (' ' || scopes || ' ') LIKE '% tokens:write %' AND (' ' || scopes || ' ') LIKE '% tokens:rotate %' AND (' ' || scopes || ' ') LIKE '% tokens:revoke %' AND (' ' || scopes || ' ') LIKE '% audit:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:write %' AND (' ' || scopes || ' ') LIKE '% chat:write %' AND (' ' || scopes || ' ') LIKE '% usage:read %' AND (' ' || scopes || ' ') LIKE '% keys:read %' AND (' ' || scopes || ' ') LIKE '% keys:write %' AND (' ' || scopes || ' ') LIKE '% x402:read %' AND (' ' || scopes || ' ') LIKE '% x402:write %' AND (' ' || scopes || ' ') LIKE '% requests:read %';
"#,
];
