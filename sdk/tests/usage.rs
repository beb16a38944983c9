//! The credit ledger: one page, or every page.

mod common;

use common::{client, mock_server};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn row(day: u32) -> Value {
    json!({"date": format!("2026-01-{day:02}"), "model": "sim-fast", "requests": 1,
        "prompt_tokens": 10, "completion_tokens": 5, "credits": 0.25})
}

fn totals(requests: u64) -> Value {
    json!({"requests": requests, "prompt_tokens": 10 * requests,
        "completion_tokens": 5 * requests, "credits": 0.25 * requests as f64})
}

/// Page `page` of 100 rows per page out of `total`, holding `rows`.
async fn page(server: &MockServer, page: u64, rows: Vec<Value>, total: u64) {
    Mock::given(method("GET"))
        .and(path("/v1/usage"))
        .and(query_param("page", page.to_string().as_str()))
        .and(query_param("per_page", "100"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": rows, "meta": {"page": page, "per_page": 100, "total": total},
            "totals": totals(total)})))
        .expect(1)
        .mount(server)
        .await;
}

#[tokio::test]
async fn all_walks_every_page_and_keeps_the_grand_total() {
    let server = mock_server().await;
    page(
        &server,
        1,
        (0..100).map(|i| row(31 - i % 31)).collect(),
        101,
    )
    .await;
    page(&server, 2, vec![row(1)], 101).await;
    let summary = client(&server).usage().all().await.unwrap();
    assert_eq!(summary.data.len(), 101);
    assert_eq!(summary.data[100].date.as_deref(), Some("2026-01-01"));
    assert_eq!(summary.totals.requests, 101);
    assert!(summary.totals.date.is_none());
}

#[tokio::test]
async fn get_reads_only_the_first_page() {
    let server = mock_server().await;
    page(
        &server,
        1,
        (0..100).map(|i| row(31 - i % 31)).collect(),
        150,
    )
    .await;
    let report = client(&server).usage().get().await.unwrap();
    assert_eq!(report.data.len(), 100);
    assert_eq!(report.meta.total, 150);
    assert_eq!(report.totals.requests, 150);
}
