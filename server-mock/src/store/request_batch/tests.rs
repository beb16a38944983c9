//! How entries are written into batches and read back.

use super::*;
use serde_json::json;

fn at(micros: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(micros).unwrap()
}

fn entry_of(workspace: &str, id: &str, micros: i64) -> RequestEntry {
    RequestEntry {
        id: id.into(),
        workspace_id: workspace.into(),
        created_at: at(micros),
        endpoint: "/v1/messages".into(),
        status: 200,
        ..RequestEntry::default()
    }
}

#[test]
fn a_batch_is_json_with_each_field_at_its_position_and_trailing_unset_ones_left_out() {
    let whole = RequestEntry {
        id: "req_1".into(),
        workspace_id: "w".into(),
        created_at: at(1_700_000_000_123_456),
        credential_id: Some("tok_1".into()),
        endpoint: "/v1/chat/completions".into(),
        model: Some("a \"quoted\" model\\ with\ttab and é".into()),
        routed_model: Some("mock".into()),
        route_reason: Some("requested".into()),
        status: 200,
        total_us: 1234,
        prompt_tokens: Some(u64::MAX),
        credits: Some(Credits::from_column(42)),
        session_id: Some("s\u{1}".into()),
        ..RequestEntry::default()
    };
    let bare = RequestEntry {
        id: "req_2".into(),
        workspace_id: "w".into(),
        created_at: at(1_700_000_000_123_457),
        stream: true,
        ..RequestEntry::default()
    };
    let batches = RequestBatch::of(&[whole, bare]);
    assert_eq!(batches.len(), 1);
    let batch: Value = serde_json::from_slice(batches[0].data()).unwrap();
    assert_eq!(
        batch,
        json!([
            [
                "req_1",
                1_700_000_000_123_456_i64,
                "tok_1",
                "/v1/chat/completions",
                "a \"quoted\" model\\ with\ttab and é",
                "mock",
                null,
                "requested",
                200,
                null,
                0,
                null,
                1234,
                i64::MAX,
                null,
                null,
                42,
                null,
                "s\u{1}"
            ],
            [
                "req_2",
                1_700_000_000_123_457_i64,
                null,
                "",
                null,
                null,
                null,
                null,
                0,
                null,
                1,
                null,
                0
            ]
        ])
    );
}

/// What is written reads back as it was, every field, in order (the chosen ids beside it).
#[test]
fn every_field_reads_back_as_written() {
    let full = RequestEntry {
        id: "mine".into(),
        workspace_id: "w".into(),
        created_at: at(1_700_000_000_000_001),
        credential_id: Some("key_1".into()),
        endpoint: "/v1/responses".into(),
        model: Some("auto".into()),
        routed_model: Some("gpt".into()),
        deployment: Some("eu".into()),
        route_reason: Some("cheapest".into()),
        status: 502,
        error: Some("upstream_error".into()),
        stream: true,
        first_token_us: Some(17),
        total_us: 900,
        prompt_tokens: Some(3),
        completion_tokens: Some(4),
        cached_tokens: Some(1),
        credits: Some(Credits::from_column(123_456_789)),
        x402_settled: Some("1000".into()),
        session_id: Some("s é ✓".into()),
        request_body: Some("{\"a\":\"\\n\"}".into()),
        response_body: Some("line\nnext".into()),
        credential_name: None,
        chosen: true,
    };
    let plain = entry_of("w", "req_2", 1_700_000_000_000_002);
    let entries = vec![full, plain];
    let batches = RequestBatch::of(&entries);
    assert_eq!(batches[0].entries(), entries);
    assert_eq!(
        batches[0].chosen(),
        &[("mine".to_string(), 1_700_000_000_000_001)]
    );
}

/// A batch holds one workspace's entries, at most MOST of them, spanning less than SPAN.
#[test]
fn batches_split_by_workspace_count_and_span() {
    let base = 1_700_000_000_000_000;
    let mut entries: Vec<RequestEntry> = (0..MOST as i64 + 1)
        .map(|n| entry_of("a", &format!("req_{n}"), base + n))
        .collect();
    entries.push(entry_of("b", "req_b", base));
    entries.push(entry_of("b", "req_b_later", base + SPAN));
    let batches = RequestBatch::of(&entries);
    let shape: Vec<(&str, usize, (i64, i64))> = batches
        .iter()
        .map(|b| (b.workspace_id(), b.len(), b.span()))
        .collect();
    assert_eq!(
        shape,
        vec![
            ("a", MOST, (base, base + MOST as i64 - 1)),
            ("a", 1, (base + MOST as i64, base + MOST as i64)),
            ("b", 1, (base, base)),
            ("b", 1, (base + SPAN, base + SPAN)),
        ]
    );
    let back: usize = batches.iter().map(|b| b.entries().len()).sum();
    assert_eq!(back, entries.len());
}

#[test]
fn a_string_is_plain_exactly_when_no_byte_needs_escaping_wherever_the_byte_sits() {
    let simple = |text: &[u8]| text.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    for len in 0..20 {
        for at in 0..len {
            for byte in 0..=255u8 {
                let mut text = vec![b'a'; len];
                text[at] = byte;
                assert_eq!(plain(&text), simple(&text), "{text:?}");
            }
        }
    }
}
