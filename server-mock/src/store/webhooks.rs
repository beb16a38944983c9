//! The `WebhookOutbox` part of storage.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    Attempt, Delivery, DeliveryOutcome, Endpoint, EventMaker, NewEvent, Page, PageRequest,
    StoreResult,
};

/// Webhook endpoints, the durable outbox of their deliveries (leased, attempted, retried), expiry
/// notices, and the sealing key check.
#[async_trait]
pub trait WebhookOutbox: Send + Sync + 'static {
    /// Adds a webhook endpoint.
    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()>;

    /// One page of the workspace's live endpoints, newest first.
    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>>;

    /// A live endpoint of the workspace.
    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>>;

    /// Deletes an endpoint and abandons its pending deliveries; [`StoreError::NotFound`](super::StoreError::NotFound) if none.
    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()>;

    /// Queues `event` for one endpoint only (a test event).
    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()>;

    /// Writes due `token.expiring` notices (see the webhooks module); returns how many.
    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: EventMaker,
    ) -> StoreResult<usize>;

    /// Makes deliveries leased by a process that has stopped due at once (called when delivery
    /// starts; with a shared backend, attempts of an instance that died are also taken over by
    /// [`WebhookOutbox::claim_due`] without waiting for their lease to run out).
    async fn release_leases(&self) -> StoreResult<()>;

    /// Deliveries waiting in the outbox (pending, leased or not), for the metrics.
    async fn outbox_depth(&self) -> StoreResult<u64>;

    /// At most `limit` deliveries due at `now` to endpoints neither deleted nor disabled,
    /// leased until `lease_until`; never more than `per_endpoint` leased at once for one
    /// endpoint, so one slow receiver cannot hold up the others.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
        per_endpoint: usize,
    ) -> StoreResult<Vec<Delivery>>;

    /// Records an attempt of delivery `delivery_id` and its outcome; a delivery abandoned
    /// meanwhile (its endpoint deleted or disabled) stays abandoned.
    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()>;

    /// One page of an endpoint's attempts, newest first.
    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>>;

    /// The webhook key check stored with the data (a value sealed with the key that seals the
    /// endpoints' secrets): stores `proposed` when there is none yet, and returns what is stored.
    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>>;
}
