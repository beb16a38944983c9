//! The workspace settings methods against wiremock: request shape, success decoding, errors.

mod common;

use common::{KEY, client, error_body, mock_server};
use serde_json::json;
use tokctl_sdk::UpdateSettings;
use wiremock::matchers::{body_json, header, method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn get_decodes_a_workspace_that_never_chose() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/settings"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"store_bodies": false, "updated_at": null})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let settings = client(&server).settings().get().await.unwrap();
    assert!(!settings.store_bodies);
    assert_eq!(settings.updated_at, None);
}

#[tokio::test]
async fn update_sends_only_the_fields_set() {
    let server = mock_server().await;
    Mock::given(method("PUT"))
        .and(path("/v1/settings"))
        .and(header("content-type", "application/json"))
        .and(body_json(json!({"store_bodies": true})))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"store_bodies": true, "updated_at": "2030-01-01T00:00:00Z"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let settings = client(&server)
        .settings()
        .update(UpdateSettings::new().store_bodies(true))
        .await
        .unwrap();
    assert!(settings.store_bodies);
    assert_eq!(
        settings.updated_at,
        Some("2030-01-01T00:00:00Z".parse().unwrap())
    );
    // The struct form sends the same body; `None` sends nothing.
    assert_eq!(
        serde_json::to_value(UpdateSettings {
            store_bodies: Some(true)
        })
        .unwrap(),
        json!({"store_bodies": true})
    );
    assert_eq!(
        serde_json::to_value(UpdateSettings::new()).unwrap(),
        json!({})
    );
}

#[tokio::test]
async fn a_missing_scope_is_a_forbidden_error() {
    let server = mock_server().await;
    Mock::given(method("PUT"))
        .and(path("/v1/settings"))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: settings:write",
        )))
        .mount(&server)
        .await;
    let err = client(&server)
        .settings()
        .update(UpdateSettings::new().store_bodies(false))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert!(err.to_string().contains("settings:write"), "{err}");
}
