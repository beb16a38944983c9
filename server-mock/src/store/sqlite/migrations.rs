//! The SQLite schema's migrations, numbered by their place in the list; [`super::schema`]
//! applies them.

/// Migrations in order; never edit one that has shipped, append a new one.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL
);
CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
    secret_digest  BLOB NOT NULL UNIQUE,
    scopes         TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    revoked_at     INTEGER
);
CREATE TABLE tokens (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
    name           TEXT NOT NULL,
    secret_digest  BLOB NOT NULL UNIQUE,
    scopes         TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER,
    revoked_at     INTEGER,
    last_used_at   INTEGER,
    created_by     TEXT NOT NULL
);
CREATE UNIQUE INDEX tokens_live_name ON tokens(workspace_id, name) WHERE revoked_at IS NULL;
CREATE INDEX tokens_newest ON tokens(workspace_id, created_at DESC, id DESC);
CREATE TABLE audit_log (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    workspace_id  TEXT NOT NULL,
    action        TEXT NOT NULL,
    actor         TEXT NOT NULL,
    token_id      TEXT,
    request_id    TEXT,
    created_at    INTEGER NOT NULL
);
CREATE INDEX audit_newest ON audit_log(workspace_id, seq DESC);
CREATE INDEX audit_by_token ON audit_log(workspace_id, token_id, seq DESC);
"#,
    r#"
CREATE TABLE usage_ledger (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    id                 TEXT NOT NULL UNIQUE,
    workspace_id       TEXT NOT NULL,
    request_id         TEXT,
    model              TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL,
    completion_tokens  INTEGER NOT NULL,
    credits            REAL NOT NULL,
    wallet             TEXT,
    created_at         INTEGER NOT NULL
);
CREATE INDEX usage_by_time ON usage_ledger(workspace_id, created_at);
"#,
    r#"
CREATE TABLE webhook_endpoints (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    url            TEXT NOT NULL,
    events         TEXT NOT NULL,
    secret_sealed  BLOB NOT NULL,
    created_at     INTEGER NOT NULL,
    disabled_at    INTEGER,
    deleted_at     INTEGER
);
CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints(workspace_id, created_at DESC);
CREATE TABLE webhook_events (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    type          TEXT NOT NULL,
    body          TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE TABLE webhook_deliveries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id         TEXT NOT NULL REFERENCES webhook_events(id),
    endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints(id),
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,
    leased           INTEGER NOT NULL DEFAULT 0,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);
CREATE TABLE webhook_attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id    TEXT NOT NULL,
    event_id       TEXT NOT NULL,
    event_type     TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    status_code    INTEGER,
    error          TEXT,
    duration_ms    INTEGER NOT NULL,
    next_retry_at  INTEGER,
    created_at     INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts(endpoint_id, id DESC);
CREATE TABLE webhook_expiry_notices (
    token_id  TEXT NOT NULL,
    notice    TEXT NOT NULL,
    PRIMARY KEY (token_id, notice)
);
"#,
    r#"
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries(endpoint_id, state, next_attempt_at);
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries(endpoint_id, next_attempt_at)
    WHERE leased = 1 AND state = 'pending';
CREATE INDEX tokens_expiring ON tokens(expires_at) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;
"#,
    // The ledger is written at every completion's pace: the row id is the table's own key, and
    // the random record id needs no index of its own (nothing looks a record up by it).
    r#"
CREATE TABLE usage_ledger_v2 (
    seq                INTEGER PRIMARY KEY,
    id                 TEXT NOT NULL,
    workspace_id       TEXT NOT NULL,
    request_id         TEXT,
    model              TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL,
    completion_tokens  INTEGER NOT NULL,
    credits            REAL NOT NULL,
    wallet             TEXT,
    created_at         INTEGER NOT NULL
);
INSERT INTO usage_ledger_v2 SELECT * FROM usage_ledger;
DROP TABLE usage_ledger;
ALTER TABLE usage_ledger_v2 RENAME TO usage_ledger;
CREATE INDEX usage_by_time ON usage_ledger(workspace_id, created_at);
"#,
    // Credits become whole nano-credits (10^-9): exact sums, no binary floating point. Rows
    // written as floats are rounded to the nearest nano-credit, which is what they meant.
    r#"
CREATE TABLE usage_ledger_v3 (
    seq                INTEGER PRIMARY KEY,
    id                 TEXT NOT NULL,
    workspace_id       TEXT NOT NULL,
    request_id         TEXT,
    model              TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL,
    completion_tokens  INTEGER NOT NULL,
    nanocredits        INTEGER NOT NULL,
    wallet             TEXT,
    created_at         INTEGER NOT NULL
);
INSERT INTO usage_ledger_v3
    SELECT seq, id, workspace_id, request_id, model, prompt_tokens, completion_tokens,
           CAST(ROUND(credits * 1000000000) AS INTEGER), wallet, created_at
    FROM usage_ledger;
DROP TABLE usage_ledger;
ALTER TABLE usage_ledger_v3 RENAME TO usage_ledger;
CREATE INDEX usage_by_time ON usage_ledger(workspace_id, created_at);
"#,
    // Values the server checks at start, such as the webhook key check; attempts listed newest
    // first by when they were made (two attempts may be recorded in the other order).
    r#"
CREATE TABLE settings (
    name   TEXT PRIMARY KEY,
    value  BLOB NOT NULL
);
CREATE INDEX webhook_attempts_by_time ON webhook_attempts(endpoint_id, created_at DESC, id DESC);
"#,
    // API keys in the API and the dashboard: named (unique among live keys, as tokens), with an
    // expiry, a creator and a last use. Keys made before are named `admin` (the first of each
    // workspace, the one made with it) or after their id. Dashboard sessions keep only digests.
    r#"
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT 'admin';
UPDATE api_keys SET name = 'key-' || substr(id, 5, 8);
UPDATE api_keys SET name = 'admin' WHERE id IN (
    SELECT (SELECT id FROM api_keys k WHERE k.workspace_id = w.id ORDER BY created_at, id LIMIT 1)
    FROM workspaces w);
CREATE UNIQUE INDEX api_keys_live_name ON api_keys(workspace_id, name) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_newest ON api_keys(workspace_id, created_at DESC, id DESC);
CREATE TABLE dashboard_sessions (
    digest      BLOB PRIMARY KEY,
    key_id      TEXT NOT NULL REFERENCES api_keys(id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
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
    updated_at       INTEGER NOT NULL
);
CREATE TABLE x402_nonces (
    network     TEXT NOT NULL,
    contract    TEXT NOT NULL,
    payer       TEXT NOT NULL,
    nonce       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
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
    next_attempt_at  INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,
    settled_at       INTEGER
);
CREATE INDEX x402_payments_due ON x402_payments(next_attempt_at) WHERE status = 'pending';
CREATE INDEX x402_payments_by_workspace ON x402_payments(workspace_id, created_at);
UPDATE api_keys SET scopes = scopes || ' x402:read x402:write'
WHERE (' ' || scopes || ' ') LIKE '% tokens:read %' AND (' ' || scopes || ' ') LIKE '% tokens:write %' AND (' ' || scopes || ' ') LIKE '% tokens:rotate %' AND (' ' || scopes || ' ') LIKE '% tokens:revoke %' AND (' ' || scopes || ' ') LIKE '% audit:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:write %' AND (' ' || scopes || ' ') LIKE '% chat:write %' AND (' ' || scopes || ' ') LIKE '% usage:read %' AND (' ' || scopes || ' ') LIKE '% keys:read %' AND (' ' || scopes || ' ') LIKE '% keys:write %';
"#,
    // Spending limits (issue 29): each token's limit, the reservations of requests being
    // answered, the notices sent once per period; the ledger names the token of each request,
    // and an audit entry may say what changed.
    r#"
ALTER TABLE usage_ledger ADD COLUMN token_id TEXT;
CREATE INDEX usage_by_token ON usage_ledger(token_id, created_at) WHERE token_id IS NOT NULL;
ALTER TABLE audit_log ADD COLUMN details TEXT;
CREATE TABLE token_limits (
    token_id      TEXT PRIMARY KEY REFERENCES tokens(id),
    credit_limit  INTEGER NOT NULL,
    reset         TEXT NOT NULL,
    since         INTEGER NOT NULL
);
CREATE TABLE spend_holds (
    id           TEXT PRIMARY KEY,
    token_id     TEXT NOT NULL,
    nanocredits  INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX spend_holds_by_token ON spend_holds(token_id, expires_at);
CREATE TABLE limit_notices (
    token_id      TEXT NOT NULL,
    period_start  INTEGER NOT NULL,
    threshold     INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (token_id, period_start, threshold)
);
ALTER TABLE tokens ADD COLUMN previous_digest BLOB;
ALTER TABLE tokens ADD COLUMN previous_expires_at INTEGER;
CREATE INDEX tokens_previous_digest ON tokens(previous_digest) WHERE previous_digest IS NOT NULL;
ALTER TABLE api_keys ADD COLUMN previous_expires_at INTEGER;
"#,
    // The deployment of the model that answered, when the model lists deployments.
    r#"
ALTER TABLE usage_ledger ADD COLUMN deployment TEXT;
"#,
    // The request log (issue 40): one row per gateway request, newest read first, deleted
    // past its retention by time; keys holding every scope get the new `requests:read`.
    r#"
CREATE TABLE request_log (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL,
    workspace_id     TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    credential_id    TEXT,
    endpoint         TEXT NOT NULL,
    model            TEXT,
    routed_model     TEXT,
    deployment       TEXT,
    route_reason     TEXT,
    status           INTEGER NOT NULL,
    error            TEXT,
    stream           INTEGER NOT NULL,
    first_token_us   INTEGER,
    total_us         INTEGER NOT NULL,
    prompt_tokens    INTEGER,
    completion_tokens INTEGER,
    cached_tokens    INTEGER,
    nanocredits      INTEGER,
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
    // The request log written for less: one index (by workspace and time) kept on every write.
    // An id the server made carries its arrival time (`secrets::request_id_time`) and is found
    // through that index; only ids a client chose (`chosen`) are indexed by id, and the rows
    // written before this migration count as chosen. Retention deletes through the same index,
    // workspace by workspace. No AUTOINCREMENT: `seq` only breaks ties among equal times.
    r#"
CREATE TABLE request_log_next (
    seq              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL,
    workspace_id     TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    credential_id    TEXT,
    endpoint         TEXT NOT NULL,
    model            TEXT,
    routed_model     TEXT,
    deployment       TEXT,
    route_reason     TEXT,
    status           INTEGER NOT NULL,
    error            TEXT,
    stream           INTEGER NOT NULL,
    first_token_us   INTEGER,
    total_us         INTEGER NOT NULL,
    prompt_tokens    INTEGER,
    completion_tokens INTEGER,
    cached_tokens    INTEGER,
    nanocredits      INTEGER,
    x402_settled     TEXT,
    session_id       TEXT,
    chosen           INTEGER NOT NULL,
    request_body     TEXT,
    response_body    TEXT
);
INSERT INTO request_log_next (seq, id, workspace_id, created_at, credential_id, endpoint, model, routed_model, deployment, route_reason, status, error, stream, first_token_us, total_us, prompt_tokens, completion_tokens, cached_tokens, nanocredits, x402_settled, session_id, request_body, response_body, chosen)
    SELECT seq, id, workspace_id, created_at, credential_id, endpoint, model, routed_model, deployment, route_reason, status, error, stream, first_token_us, total_us, prompt_tokens, completion_tokens, cached_tokens, nanocredits, x402_settled, session_id, request_body, response_body, 1 FROM request_log ORDER BY seq;
DROP TABLE request_log;
ALTER TABLE request_log_next RENAME TO request_log;
CREATE INDEX request_log_by_workspace ON request_log(workspace_id, created_at);
CREATE INDEX request_log_chosen_ids ON request_log(workspace_id, id) WHERE chosen = 1;
"#,
    // Workspaces' settings (issue 40): a row once a workspace chose (`PUT /v1/settings`), none
    // while the server's default applies; keys holding every scope get the new
    // `settings:read` and `settings:write`.
    r#"
CREATE TABLE workspace_settings (
    workspace_id  TEXT PRIMARY KEY,
    store_bodies  INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
UPDATE api_keys SET scopes = scopes || ' settings:read settings:write'
WHERE (' ' || scopes || ' ') LIKE '% tokens:read %' AND (' ' || scopes || ' ') LIKE '% tokens:write %' AND (' ' || scopes || ' ') LIKE '% tokens:rotate %' AND (' ' || scopes || ' ') LIKE '% tokens:revoke %' AND (' ' || scopes || ' ') LIKE '% audit:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:read %' AND (' ' || scopes || ' ') LIKE '% webhooks:write %' AND (' ' || scopes || ' ') LIKE '% chat:write %' AND (' ' || scopes || ' ') LIKE '% usage:read %' AND (' ' || scopes || ' ') LIKE '% keys:read %' AND (' ' || scopes || ' ') LIKE '% keys:write %' AND (' ' || scopes || ' ') LIKE '% x402:read %' AND (' ' || scopes || ' ') LIKE '% x402:write %' AND (' ' || scopes || ' ') LIKE '% requests:read %';
"#,
    // The request log in batches (issue 40): one row per flush and workspace holding its
    // entries as a JSON array of arrays (positions in `requests::POSITIONS`), so that logging a
    // request costs an entry's encoding rather than a row and its index. `request_log` is now a
    // view of the batches' entries, read with the same SQL as the table it replaces; ids a
    // client chose are indexed beside them (`request_log_chosen`). The rows written before
    // become batches of a minute each: no batch spans more (`store::request_batch::SPAN`), so the
    // batches holding a time are found by a bounded seek on their first entry's time.
    r#"
CREATE TABLE request_log_batches (
    seq           INTEGER PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    first_at      INTEGER NOT NULL,
    last_at       INTEGER NOT NULL,
    entries       INTEGER NOT NULL,
    data          TEXT NOT NULL
);
CREATE INDEX request_log_batches_by_start ON request_log_batches(workspace_id, first_at);
CREATE TABLE request_log_chosen (
    workspace_id  TEXT NOT NULL,
    id            TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX request_log_chosen_by_id ON request_log_chosen(workspace_id, id);
CREATE INDEX request_log_chosen_by_time ON request_log_chosen(workspace_id, created_at);
INSERT INTO request_log_batches (workspace_id, first_at, last_at, entries, data)
    SELECT workspace_id, MIN(created_at), MAX(created_at), COUNT(*), json_group_array(json(entry))
    FROM (SELECT workspace_id, created_at, json_array(id, created_at, credential_id, endpoint,
              model, routed_model, deployment, route_reason, status, error, stream,
              first_token_us, total_us, prompt_tokens, completion_tokens, cached_tokens,
              nanocredits, x402_settled, session_id, request_body, response_body) AS entry
          FROM request_log ORDER BY workspace_id, created_at, seq)
    GROUP BY workspace_id, created_at / 60000000;
INSERT INTO request_log_chosen (workspace_id, id, created_at)
    SELECT workspace_id, id, created_at FROM request_log WHERE chosen = 1;
DROP TABLE request_log;
CREATE VIEW request_log AS SELECT
    b.seq * 4294967296 + j.key AS seq, b.seq AS batch, b.first_at AS batch_first,
    b.last_at AS batch_last, b.workspace_id AS workspace_id,
    j.value ->> 0 AS id, j.value ->> 1 AS created_at, j.value ->> 2 AS credential_id,
    j.value ->> 3 AS endpoint, j.value ->> 4 AS model, j.value ->> 5 AS routed_model,
    j.value ->> 6 AS deployment, j.value ->> 7 AS route_reason, j.value ->> 8 AS status,
    j.value ->> 9 AS error, j.value ->> 10 AS stream, j.value ->> 11 AS first_token_us,
    j.value ->> 12 AS total_us, j.value ->> 13 AS prompt_tokens,
    j.value ->> 14 AS completion_tokens, j.value ->> 15 AS cached_tokens,
    j.value ->> 16 AS nanocredits, j.value ->> 17 AS x402_settled,
    j.value ->> 18 AS session_id, j.value ->> 19 AS request_body,
    j.value ->> 20 AS response_body
FROM request_log_batches b, json_each(b.data) j;
"#,
];
