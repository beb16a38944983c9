//! SQLite schema, applied as numbered migrations at start (`PRAGMA user_version` tracks them).

use rusqlite::Connection;

use super::migrations::MIGRATIONS;
use crate::store::{StoreError, StoreResult};

/// Brings the database up to the newest schema, one transaction per migration. Safe to run from
/// two processes at once: the version is read inside each write transaction. A database a newer
/// server migrated past what this one knows is refused.
pub fn migrate(conn: &mut Connection) -> StoreResult<()> {
    check(conn)?;
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let Some(sql) = MIGRATIONS.get(current as usize) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", current + 1)?;
        tx.commit()?;
    }
}

/// Refuses a schema newer than this server's (another process of a newer version migrated it).
pub fn check(conn: &Connection) -> StoreResult<()> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    match found as usize > MIGRATIONS.len() {
        true => Err(StoreError::NewerSchema {
            found,
            known: MIGRATIONS.len(),
        }),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_rows_written_as_floats_become_exact_nano_credits() {
        let mut conn = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..5] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 5).unwrap();
        for (id, credits) in [("a", 0.010199999999999999), ("b", 0.0102), ("c", 3.0)] {
            conn.execute(
                "INSERT INTO usage_ledger (id, workspace_id, model, prompt_tokens,
                     completion_tokens, credits, created_at) VALUES (?1, 'w', 'm', 1, 1, ?2, 0)",
                rusqlite::params![id, credits],
            )
            .unwrap();
        }
        migrate(&mut conn).unwrap();
        let nanos: Vec<i64> = conn
            .prepare("SELECT nanocredits FROM usage_ledger ORDER BY id")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(nanos, [10_200_000, 10_200_000, 3_000_000_000]);
    }

    #[test]
    fn keys_holding_every_scope_get_the_x402_and_requests_scopes_and_others_do_not() {
        let mut conn = Connection::open_in_memory().unwrap();
        let before = MIGRATIONS
            .iter()
            .position(|sql| sql.contains("CREATE TABLE x402_settings"))
            .unwrap();
        for sql in &MIGRATIONS[..before] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", before as i64)
            .unwrap();
        let every = "tokens:read tokens:write tokens:rotate tokens:revoke audit:read \
                     webhooks:read webhooks:write chat:write usage:read keys:read keys:write";
        conn.execute(
            "INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'w', 0)",
            [],
        )
        .unwrap();
        for (id, scopes) in [("key_admin", every), ("key_ci", "tokens:read chat:write")] {
            conn.execute(
                "INSERT INTO api_keys (id, workspace_id, secret_digest, scopes, created_at, name)
                 VALUES (?1, 'w', ?1, ?2, 0, ?1)",
                rusqlite::params![id, scopes],
            )
            .unwrap();
        }
        migrate(&mut conn).unwrap();
        let scopes = |id: &str| -> String {
            conn.query_row("SELECT scopes FROM api_keys WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
        };
        assert_eq!(
            scopes("key_admin"),
            format!("{every} x402:read x402:write requests:read settings:read settings:write")
        );
        assert_eq!(scopes("key_ci"), "tokens:read chat:write");
    }
}
