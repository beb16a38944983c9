//! A read-through cache of credentials and tokens, so the hot path (authenticate, read a token)
//! needs no trip to the database once warm.
//!
//! Coherence rests on two rules. Rows are dropped once a change to them is committed and before
//! a request that could see the old row looks: with SQLite, the writer thread drops them after
//! the commit and before the writer's caller is answered (the lock is taken only after the
//! commit, so readers never wait for an fsync); with PostgreSQL, each request first syncs with
//! the change log every instance writes to (see `postgres/sync.rs`). And a reader that missed
//! stores what it read only if nothing was dropped since it looked (the generation did not
//! move), so a row read before a change never lands after it.

use foldhash::HashMap;
use std::future::Future;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::{Credential, StoreResult, TokenRecord};

/// Most entries kept per map; past it the map starts over.
const MAX_ENTRIES: usize = 100_000;

/// Rows read recently, by digest and by token id.
#[derive(Default)]
pub struct Cache {
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    generation: u64,
    credentials: HashMap<[u8; 32], Credential>,
    /// Credential id → its digests (a token's current secret and, during a rotation's
    /// overlap, the one it replaced), to drop a credential by id.
    digests: HashMap<String, Vec<[u8; 32]>>,
    tokens: HashMap<String, TokenRecord>,
}

/// A point in the cache's history, taken before reading storage on a miss.
#[derive(Clone, Copy)]
struct Generation(u64);

impl Cache {
    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The cached credential with this digest.
    fn credential(&self, digest: &[u8; 32]) -> Option<Credential> {
        self.read().credentials.get(digest).cloned()
    }

    /// The cached token `id` of `workspace_id`.
    fn token(&self, workspace_id: &str, id: &str) -> Option<TokenRecord> {
        self.read()
            .tokens
            .get(id)
            .filter(|t| t.workspace_id == workspace_id)
            .cloned()
    }

    /// The cached credential with `digest`, else what `read` finds, kept unless rows were
    /// dropped while it read (`read` starts only once the cache's generation is noted). `read`
    /// makes its future only on a miss: a hit never builds (nor moves) the storage call.
    pub async fn credential_or<F>(
        &self,
        digest: [u8; 32],
        read: impl FnOnce() -> F,
    ) -> StoreResult<Option<Credential>>
    where
        F: Future<Output = StoreResult<Option<Credential>>>,
    {
        if let Some(credential) = self.credential(&digest) {
            return Ok(Some(credential));
        }
        let seen = self.generation();
        // Boxed, so that a hit's future stays small: async_trait moves it into a box whole.
        let found = Box::pin(read()).await?;
        if let Some(credential) = &found {
            self.put_credential(seen, digest, credential.clone());
        }
        Ok(found)
    }

    /// The cached token `id` of `workspace_id`, else what `read` finds, kept as
    /// [`Cache::credential_or`] keeps a credential.
    pub async fn token_or<F>(
        &self,
        workspace_id: &str,
        id: &str,
        read: impl FnOnce() -> F,
    ) -> StoreResult<Option<TokenRecord>>
    where
        F: Future<Output = StoreResult<Option<TokenRecord>>>,
    {
        if let Some(token) = self.token(workspace_id, id) {
            return Ok(Some(token));
        }
        let seen = self.generation();
        let found = Box::pin(read()).await?;
        if let Some(token) = &found {
            self.put_token(seen, token.clone());
        }
        Ok(found)
    }

    /// Where the cache stands now; pass it back when storing what a miss read.
    fn generation(&self) -> Generation {
        Generation(self.read().generation)
    }

    /// Stores a credential read at `seen`, unless a commit changed cached rows since.
    fn put_credential(&self, seen: Generation, digest: [u8; 32], credential: Credential) {
        let mut inner = self.write();
        if inner.generation != seen.0 {
            return;
        }
        if inner.credentials.len() >= MAX_ENTRIES {
            inner.credentials.clear();
            inner.digests.clear();
        }
        let digests = inner.digests.entry(credential.id.clone()).or_default();
        if !digests.contains(&digest) {
            digests.push(digest);
        }
        inner.credentials.insert(digest, credential);
    }

    /// Stores a token read at `seen`, unless a commit changed cached rows since.
    fn put_token(&self, seen: Generation, token: TokenRecord) {
        let mut inner = self.write();
        if inner.generation != seen.0 {
            return;
        }
        if inner.tokens.len() >= MAX_ENTRIES {
            inner.tokens.clear();
        }
        inner.tokens.insert(token.id.clone(), token);
    }

    /// Drops everything (what changed is not known).
    pub fn clear(&self) {
        let mut inner = self.write();
        inner.generation += 1;
        inner.credentials.clear();
        inner.digests.clear();
        inner.tokens.clear();
    }

    /// Drops every cached row of these credentials or tokens; called once their change has
    /// committed and before anyone is told so.
    pub fn invalidate(&self, ids: &[String]) {
        let mut inner = self.write();
        inner.generation += 1;
        for id in ids {
            for digest in inner.digests.remove(id).unwrap_or_default() {
                inner.credentials.remove(&digest);
            }
            inner.tokens.remove(id);
        }
    }
}
