//! The request log's entries as storage receives them: in batches, each of one workspace and at
//! most [`MOST`] entries spanning less than [`SPAN`], its entries one JSON array of arrays, each
//! entry's fields in fixed positions ([`RequestBatch::push`]). A request's entry is written into
//! its batch once, on the request's own thread as it ends, from borrowed fields ([`EntryRef`]):
//! no entry is built, moved, queued or freed on its own. SQLite keeps a batch as one row (its
//! `request_log` view reads the positions); PostgreSQL reads the entries back
//! ([`RequestBatch::entries`]) and keeps a row each.

use serde_json::Value;

use super::{RequestEntry, count_column};
use crate::credits::Credits;

/// Most entries one batch holds.
pub const MOST: usize = 1024;

/// The longest time one batch spans, first entry to last, in microseconds: the batches that
/// may hold a time are those that started at most this long before it (SQLite's reads write it
/// out, 60,000,000).
pub const SPAN: i64 = 60_000_000;

/// Bytes an entry takes in a batch, about.
pub const ENTRY_BYTES: usize = 192;

/// One workspace's entries, written as JSON.
#[derive(Debug, Clone)]
pub struct RequestBatch {
    workspace_id: String,
    first_at: i64,
    last_at: i64,
    len: usize,
    /// Always a whole JSON array: `[]`, or `[e1,e2,...]`.
    data: Vec<u8>,
    /// The ids clients chose, with when each arrived (microseconds).
    chosen: Vec<(String, i64)>,
}

/// An entry's fields, borrowed from wherever they are kept until it is written; times in
/// microseconds since the epoch.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    pub id: &'a str,
    pub created_at: i64,
    pub credential_id: Option<&'a str>,
    pub endpoint: &'a str,
    pub model: Option<&'a str>,
    pub routed_model: Option<&'a str>,
    pub deployment: Option<&'a str>,
    pub route_reason: Option<&'a str>,
    pub status: u16,
    pub error: Option<&'a str>,
    pub stream: bool,
    pub first_token_us: Option<i64>,
    pub total_us: i64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub credits: Option<Credits>,
    pub x402_settled: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub request_body: Option<&'a str>,
    pub response_body: Option<&'a str>,
    /// Whether a client chose `id`.
    pub chosen: bool,
    /// Whether no text among the fields needs escaping in JSON, as [`plain`] tells of them all
    /// at once (else each is looked at on its own).
    pub plain: bool,
}

impl<'a> From<&'a RequestEntry> for EntryRef<'a> {
    fn from(e: &'a RequestEntry) -> Self {
        EntryRef {
            id: &e.id,
            created_at: e.created_at.timestamp_micros(),
            credential_id: e.credential_id.as_deref(),
            endpoint: &e.endpoint,
            model: e.model.as_deref(),
            routed_model: e.routed_model.as_deref(),
            deployment: e.deployment.as_deref(),
            route_reason: e.route_reason.as_deref(),
            status: e.status,
            error: e.error.as_deref(),
            stream: e.stream,
            first_token_us: e.first_token_us,
            total_us: e.total_us,
            prompt_tokens: e.prompt_tokens,
            completion_tokens: e.completion_tokens,
            cached_tokens: e.cached_tokens,
            credits: e.credits,
            x402_settled: e.x402_settled.as_deref(),
            session_id: e.session_id.as_deref(),
            request_body: e.request_body.as_deref(),
            response_body: e.response_body.as_deref(),
            chosen: e.chosen,
            plain: false,
        }
    }
}

impl RequestBatch {
    /// An empty batch of the workspace, with room for `room` entries.
    pub fn new(workspace_id: &str, room: usize) -> Self {
        let mut data = Vec::with_capacity(2 + room * ENTRY_BYTES);
        data.extend_from_slice(b"[]");
        RequestBatch {
            workspace_id: workspace_id.to_string(),
            first_at: i64::MAX,
            last_at: i64::MIN,
            len: 0,
            data,
            chosen: Vec::new(),
        }
    }

    /// `entries` in batches: one or more per workspace, in their order.
    pub fn of(entries: &[RequestEntry]) -> Vec<RequestBatch> {
        let mut batches: Vec<RequestBatch> = Vec::new();
        for e in entries {
            let entry = EntryRef::from(e);
            let open = batches
                .iter_mut()
                .rev()
                .find(|b| b.workspace_id == e.workspace_id)
                .filter(|b| b.takes(entry.created_at));
            match open {
                Some(batch) => batch.push(&entry),
                None => {
                    let mut batch = RequestBatch::new(&e.workspace_id, 1);
                    batch.push(&entry);
                    batches.push(batch);
                }
            }
        }
        batches
    }

    /// The workspace its entries belong to.
    pub fn workspace_id(&self) -> &str {
        &self.workspace_id
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// When its earliest and its latest entry arrived (microseconds).
    pub fn span(&self) -> (i64, i64) {
        (self.first_at, self.last_at)
    }

    /// Its entries as a JSON array (UTF-8).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The ids clients chose among its entries, with when each arrived (microseconds).
    pub fn chosen(&self) -> &[(String, i64)] {
        &self.chosen
    }

    /// Whether an entry that arrived `at` still fits: fewer than [`MOST`] held, and the span
    /// with it under [`SPAN`].
    pub fn takes(&self, at: i64) -> bool {
        self.len < MOST && self.last_at.max(at).saturating_sub(self.first_at.min(at)) < SPAN
    }

    /// Appends `e` (whether it [`takes`](Self::takes) it is the caller's to ask).
    pub fn push(&mut self, e: &EntryRef<'_>) {
        self.data.pop();
        if self.len > 0 {
            self.data.push(b',');
        }
        entry(&mut self.data, e);
        self.data.push(b']');
        self.len += 1;
        self.first_at = self.first_at.min(e.created_at);
        self.last_at = self.last_at.max(e.created_at);
        if e.chosen {
            self.chosen.push((e.id.to_string(), e.created_at));
        }
    }

    /// Its entries read back, in order; a field that does not read as its kind reads as unset.
    pub fn entries(&self) -> Vec<RequestEntry> {
        let rows: Vec<Vec<Value>> = serde_json::from_slice(&self.data).unwrap_or_default();
        rows.iter()
            .map(|fields| {
                let at = |i: usize| fields.get(i).unwrap_or(&Value::Null);
                let text = |i: usize| at(i).as_str().map(str::to_string);
                let int = |i: usize| at(i).as_i64();
                let count = |i: usize| int(i).map(|n| n.max(0) as u64);
                let created = int(1).unwrap_or_default();
                let id = text(0).unwrap_or_default();
                let chosen = self.chosen.iter().any(|(c, at)| *c == id && *at == created);
                RequestEntry {
                    id,
                    workspace_id: self.workspace_id.clone(),
                    created_at: chrono::DateTime::from_timestamp_micros(created)
                        .unwrap_or_default(),
                    credential_id: text(2),
                    credential_name: None,
                    endpoint: text(3).unwrap_or_default(),
                    model: text(4),
                    routed_model: text(5),
                    deployment: text(6),
                    route_reason: text(7),
                    status: int(8).and_then(|s| u16::try_from(s).ok()).unwrap_or(0),
                    error: text(9),
                    stream: int(10) == Some(1),
                    first_token_us: int(11),
                    total_us: int(12).unwrap_or_default(),
                    prompt_tokens: count(13),
                    completion_tokens: count(14),
                    cached_tokens: count(15),
                    credits: int(16).map(Credits::from_column),
                    x402_settled: text(17),
                    session_id: text(18),
                    request_body: text(19),
                    response_body: text(20),
                    chosen,
                }
            })
            .collect()
    }
}

/// Most bytes a field takes besides its text: a comma, and quotes or a number (20 digits and
/// a sign).
const FIELD_BYTES: usize = 22;

/// Fields in an entry.
const FIELDS: usize = 21;

/// `e` as a JSON array of its fields in their positions (the ones SQLite's `request_log` view
/// reads: never reorder, only append), up to the last that is set (a missing position reads as
/// NULL), its room made at once. Written by hand rather than through serde, whose generic
/// framing cost about 2,000 instructions an entry; a string that needs escaping is still escaped
/// by `serde_json`.
fn entry(out: &mut Vec<u8>, e: &EntryRef<'_>) {
    let len = |text: Option<&str>| text.map_or(0, str::len);
    let texts = e.id.len()
        + e.endpoint.len()
        + len(e.credential_id)
        + len(e.model)
        + len(e.routed_model)
        + len(e.deployment)
        + len(e.route_reason)
        + len(e.error)
        + len(e.x402_settled)
        + len(e.session_id)
        + len(e.request_body)
        + len(e.response_body);
    out.reserve(2 + texts + FIELDS * FIELD_BYTES);
    out.push(b'[');
    string(out, e.id, e.plain);
    let mut fields = Fields {
        out: &mut *out,
        nulls: 0,
        plain: e.plain,
    };
    fields.int(Some(e.created_at));
    fields.text(e.credential_id);
    fields.text(Some(e.endpoint));
    fields.text(e.model);
    fields.text(e.routed_model);
    fields.text(e.deployment);
    fields.text(e.route_reason);
    fields.int(Some(i64::from(e.status)));
    fields.text(e.error);
    fields.int(Some(i64::from(e.stream)));
    fields.int(e.first_token_us);
    fields.int(Some(e.total_us));
    fields.int(count_column(e.prompt_tokens));
    fields.int(count_column(e.completion_tokens));
    fields.int(count_column(e.cached_tokens));
    fields.int(e.credits.map(Credits::to_column));
    fields.text(e.x402_settled);
    fields.text(e.session_id);
    fields.text(e.request_body);
    fields.text(e.response_body);
    out.push(b']');
}

/// An entry's fields after its first, each after a comma; an unset one (null) is held back
/// until a set one follows, so the trailing ones are never written.
struct Fields<'a> {
    out: &'a mut Vec<u8>,
    nulls: usize,
    /// Whether every text is known to need no escaping.
    plain: bool,
}

impl Fields<'_> {
    #[inline]
    fn next(&mut self) {
        for _ in 0..std::mem::take(&mut self.nulls) {
            self.out.extend_from_slice(b",null");
        }
        self.out.push(b',');
    }

    #[inline]
    fn text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => {
                self.next();
                string(self.out, text, self.plain);
            }
            None => self.nulls += 1,
        }
    }

    #[inline]
    fn int(&mut self, n: Option<i64>) {
        match n {
            Some(n) => {
                self.next();
                self.out
                    .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            }
            None => self.nulls += 1,
        }
    }
}

/// `text` as a JSON string: as it is between quotes when nothing in it needs escaping (`known`,
/// or found so: ids, model names, codes, nearly always), else escaped by `serde_json`.
#[inline]
fn string(out: &mut Vec<u8>, text: &str, known: bool) {
    if known || plain(text.as_bytes()) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else if serde_json::to_writer(&mut *out, text).is_err() {
        // A &str always serializes into memory; should it not, the field reads as NULL.
        out.extend_from_slice(b"null");
    }
}

/// Whether no byte of `text` needs escaping in a JSON string (a control character, `"` or
/// `\\`). Every byte is looked at, with no early exit, so that the compiler checks sixteen or
/// more at a time.
pub fn plain(text: &[u8]) -> bool {
    text.iter()
        .fold(true, |ok, &b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'))
}

#[cfg(test)]
mod tests;
