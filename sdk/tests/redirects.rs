//! The API has no redirects: a 3xx is an error, never followed (a POST is never re-sent
//! elsewhere with the key). The catch-all mock fails the test on any followed request.

mod common;

use common::{client, mock_server};
use futures::StreamExt;
use tokctl_sdk::{ChatMessage, ChatRequest};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn redirect(server: &MockServer, verb: &str, from: &str) {
    Mock::given(method(verb))
        .and(path(from))
        .respond_with(ResponseTemplate::new(307).insert_header(
            "location",
            format!("{}/v1/elsewhere", server.uri()).as_str(),
        ))
        .expect(1)
        .mount(server)
        .await;
}

fn hello() -> ChatRequest {
    ChatRequest::new("auto").message(ChatMessage::user("hi"))
}

#[tokio::test]
async fn a_redirected_completion_is_not_posted_again() {
    let server = mock_server().await;
    redirect(&server, "POST", "/v1/chat/completions").await;
    let err = client(&server).chat().create(&hello()).await.unwrap_err();
    assert_eq!(err.status(), Some(307), "{err:?}");
}

#[tokio::test]
async fn a_redirected_stream_is_not_posted_again() {
    let server = mock_server().await;
    redirect(&server, "POST", "/v1/chat/completions").await;
    let client = client(&server);
    let err = match client.chat().create_stream(&hello()).await {
        Ok(mut stream) => {
            let first = stream.next().await.expect("an item").unwrap_err();
            assert!(
                stream.next().await.is_none(),
                "the stream ends at the error"
            );
            first
        }
        Err(err) => err,
    };
    assert_eq!(err.status(), Some(307), "{err:?}");
}

#[tokio::test]
async fn a_redirected_get_is_not_followed() {
    let server = mock_server().await;
    redirect(&server, "GET", "/v1/tokens/tok_a").await;
    let err = client(&server).tokens().get("tok_a").await.unwrap_err();
    assert_eq!(err.status(), Some(307), "{err:?}");
    assert!(!err.is_not_found());
}
