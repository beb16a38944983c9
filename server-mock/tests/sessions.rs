//! The dashboard's sessions and pages: signing in with an API key gives an HttpOnly cookie
//! naming a server-side session; requests it signs need the CSRF header; sign-out and the key's
//! revocation end it at once; the pages carry a strict Content-Security-Policy.

mod common;

use common::{both, postgres};

use common::{Options, Server, assert_error, id};
use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};

/// A signed-in dashboard session: its cookie and CSRF token.
struct Session {
    cookie: String,
    csrf: String,
    body: Value,
}

async fn sign_in(server: &Server, key: &str) -> Session {
    let response = sign_in_response(server, key).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let set_cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_string();
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let body: Value = response.json().await.unwrap();
    Session {
        cookie,
        csrf: body["csrf_token"].as_str().unwrap().to_string(),
        body,
    }
}

async fn sign_in_response(server: &Server, key: &str) -> Response {
    reqwest::Client::new()
        .post(server.url("/session"))
        .json(&json!({ "key": key }))
        .send()
        .await
        .unwrap()
}

/// A request signed by the session's cookie, with its CSRF header when `csrf`.
fn by_cookie(
    server: &Server,
    session: &Session,
    method: Method,
    path: &str,
    csrf: bool,
) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .request(method, server.url(path))
        .header("cookie", &session.cookie);
    match csrf {
        true => request.header("x-csrf-token", &session.csrf),
        false => request,
    }
}

async fn send(request: reqwest::RequestBuilder) -> Response {
    request.send().await.unwrap()
}

both! {
    #[tokio::test]
    async fn signing_in_sets_a_strict_http_only_cookie_that_never_holds_the_key() {
        let server = Server::start();
        let response = sign_in_response(&server, &server.admin_key).await;
        assert_eq!(response.status(), 201);
        assert_eq!(response.headers()["cache-control"], "no-store");
        let set_cookie = response.headers()["set-cookie"].to_str().unwrap().to_string();
        let attributes: Vec<&str> = set_cookie.split("; ").collect();
        assert!(attributes[0].starts_with("tokctl_session=tks_"), "{set_cookie}");
        for wanted in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
            assert!(attributes.contains(&wanted), "{wanted} missing: {set_cookie}");
        }
        assert!(!set_cookie.contains("Secure"), "plain HTTP: {set_cookie}");
        assert!(!set_cookie.contains(&server.admin_key[4..]), "{set_cookie}");
        let body: Value = response.json().await.unwrap();
        assert!(!body.to_string().contains(&server.admin_key[4..]), "{body}");
        assert_eq!(body["key"]["name"], "admin");
        assert_eq!(body["workspace"]["name"], "default");
        assert!(body["key"]["scopes"].as_array().unwrap().contains(&json!("keys:write")));
        assert_eq!(body["csrf_token"].as_str().unwrap().len(), 64);

        // Behind a proxy that took HTTPS, the cookie is Secure.
        let response = reqwest::Client::new()
            .post(server.url("/session"))
            .header("x-forwarded-proto", "https")
            .json(&json!({ "key": server.admin_key }))
            .send()
            .await
            .unwrap();
        let set_cookie = response.headers()["set-cookie"].to_str().unwrap();
        assert!(set_cookie.ends_with("; Secure"), "{set_cookie}");

        // A reloaded page learns its session (and CSRF token) from the cookie alone.
        let session = sign_in(&server, &server.admin_key).await;
        let shown = send(by_cookie(&server, &session, Method::GET, "/session", false)).await;
        assert_eq!(shown.status(), 200);
        let shown: Value = shown.json().await.unwrap();
        assert_eq!(shown["csrf_token"], session.body["csrf_token"]);
        assert_eq!(shown["key"]["id"], session.body["key"]["id"]);
    }
}

both! {
    #[tokio::test]
    async fn a_cookie_signed_request_needs_the_csrf_header() {
        let server = Server::start();
        let session = sign_in(&server, &server.admin_key).await;
        let create = |csrf: &str| {
            reqwest::Client::new()
                .post(server.url("/v1/tokens"))
                .header("cookie", &session.cookie)
                .header("x-csrf-token", csrf)
                .json(&json!({"name": "from-the-dashboard", "scopes": ["tokens:read"]}))
        };
        let response = send(by_cookie(&server, &session, Method::POST, "/v1/tokens", false)
            .json(&json!({"name": "from-the-dashboard", "scopes": ["tokens:read"]})))
        .await;
        let message = assert_error(response, 403, "forbidden").await;
        assert!(message.contains("X-CSRF-Token"), "{message}");
        let other = sign_in(&server, &server.admin_key).await;
        assert_error(send(create(&other.csrf)).await, 403, "forbidden").await;
        assert_error(send(create("")).await, 403, "forbidden").await;
        let listed: Value = server.get("/v1/tokens", &server.admin_key).await.json().await.unwrap();
        assert_eq!(listed["meta"]["total"], 0, "a refused write changed nothing");

        let response = send(create(&session.csrf)).await;
        assert_eq!(response.status(), 201);
        let token: Value = response.json().await.unwrap();
        assert_eq!(token["created_by"], session.body["key"]["id"]);
        let read = send(by_cookie(&server, &session, Method::GET, "/v1/tokens", true)).await;
        assert_eq!(read.status(), 200);
        assert_error(
            send(by_cookie(&server, &session, Method::GET, "/v1/tokens", false)).await,
            403,
            "forbidden",
        )
        .await;

        // The refusal is audited against the key.
        let audit: Value = server
            .get("/v1/audit?action=auth.denied", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert!(audit["meta"]["total"].as_u64().unwrap() >= 3, "{audit}");
        assert_eq!(audit["data"][0]["actor"], session.body["key"]["id"]);
    }
}

both! {
    #[tokio::test]
    async fn signing_out_ends_the_session_at_once() {
        let server = Server::start();
        let session = sign_in(&server, &server.admin_key).await;
        // Signing out needs the CSRF header too (no cross-site sign-out).
        let response = send(by_cookie(&server, &session, Method::DELETE, "/session", false)).await;
        assert_error(response, 403, "forbidden").await;
        assert_eq!(send(by_cookie(&server, &session, Method::GET, "/v1/tokens", true)).await.status(), 200);

        let response = send(by_cookie(&server, &session, Method::DELETE, "/session", true)).await;
        assert_eq!(response.status(), 204);
        let cleared = response.headers()["set-cookie"].to_str().unwrap();
        assert!(cleared.starts_with("tokctl_session=;") && cleared.contains("Max-Age=0"), "{cleared}");
        let message = assert_error(
            send(by_cookie(&server, &session, Method::GET, "/v1/tokens", true)).await,
            401,
            "unauthorized",
        )
        .await;
        assert!(message.contains("sign in again"), "{message}");
        assert_eq!(send(by_cookie(&server, &session, Method::GET, "/session", false)).await.status(), 401);
        // The key itself still works; signing out twice is fine.
        assert_eq!(server.get("/v1/tokens", &server.admin_key).await.status(), 200);
        assert_eq!(send(by_cookie(&server, &session, Method::DELETE, "/session", true)).await.status(), 204);

        let audit: Value = server.get("/v1/audit", &server.admin_key).await.json().await.unwrap();
        let actions: Vec<&str> = audit["data"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
        assert!(actions.contains(&"session.started") && actions.contains(&"session.ended"), "{actions:?}");
    }
}

both! {
    #[tokio::test]
    async fn revoking_a_key_ends_its_sessions() {
        let server = Server::start();
        let key: Value = server
            .post("/v1/keys", &server.admin_key, &json!({"name": "laptop", "scopes": ["tokens:read"]}))
            .await
            .json()
            .await
            .unwrap();
        let secret = key["key"].as_str().unwrap().to_string();
        let session = sign_in(&server, &secret).await;
        assert_eq!(session.body["key"]["name"], "laptop");
        assert_eq!(send(by_cookie(&server, &session, Method::GET, "/v1/tokens", true)).await.status(), 200);

        let path = format!("/v1/keys/{}", id(&key));
        assert_eq!(server.delete(&path, &server.admin_key).await.status(), 204);
        assert_error(
            send(by_cookie(&server, &session, Method::GET, "/v1/tokens", true)).await,
            401,
            "unauthorized",
        )
        .await;
        assert_eq!(send(by_cookie(&server, &session, Method::GET, "/session", false)).await.status(), 401);
        let message = assert_error(sign_in_response(&server, &secret).await, 401, "unauthorized").await;
        assert!(message.contains("revoked"), "{message}");
    }
}

both! {
    #[tokio::test]
    async fn only_a_valid_api_key_signs_in() {
        let server = Server::start();
        let token = server.create_token("ci", &["tokens:read"]).await;
        let cases = [
            ("tka_not-a-key", "not valid"),
            (token["token"].as_str().unwrap(), "API key"),
            ("tka_000000000000000000000000000000000000", "not valid"),
        ];
        for (key, wanted) in cases {
            let response = sign_in_response(&server, key).await;
            assert!(response.headers().get("set-cookie").is_none());
            let message = assert_error(response, 401, "unauthorized").await;
            assert!(message.contains(wanted), "{key}: {message}");
        }
        let response = reqwest::Client::new()
            .post(server.url("/session"))
            .header("content-type", "application/json")
            .body("{\"key\": 42}")
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
        let response = reqwest::Client::new()
            .post(server.url("/session"))
            .body("key=tka_x")
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
        // No cookie, or a made-up one: not signed in.
        let response = reqwest::Client::new().get(server.url("/session")).send().await.unwrap();
        assert_error(response, 401, "unauthorized").await;
        let response = reqwest::Client::new()
            .get(server.url("/v1/tokens"))
            .header("cookie", "tokctl_session=tks_made-up")
            .header("x-csrf-token", "x")
            .send()
            .await
            .unwrap();
        assert_error(response, 401, "unauthorized").await;
    }
}

#[tokio::test]
async fn the_dashboard_is_served_with_a_strict_content_security_policy() {
    let server = Server::start();
    let client = reqwest::Client::new();
    let page = client.get(server.url("/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let headers = page.headers().clone();
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    let policy = headers["content-security-policy"].to_str().unwrap();
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "{policy}");
    }
    assert!(
        !policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"),
        "{policy}"
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let html = page.text().await.unwrap();
    // Every script is a file of the dashboard's own: nothing inline.
    let scripts: Vec<&str> = html.split("<script").skip(1).collect();
    assert!(!scripts.is_empty(), "{html}");
    for script in scripts {
        let tag = &script[..script.find('>').unwrap()];
        assert!(
            tag.contains("src=\"/"),
            "inline or foreign script: <script{tag}>"
        );
        assert!(
            script[script.find('>').unwrap() + 1..]
                .trim_start()
                .starts_with("</script>")
        );
    }
    let module = client.get(server.url("/js/app.js")).send().await.unwrap();
    assert_eq!(module.status(), 200);
    assert_eq!(
        module.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert!(module.headers().contains_key("content-security-policy"));
    // Unknown paths outside /v1 are still the API's 404.
    let missing = client.get(server.url("/nope.js")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
}

postgres! {
    #[tokio::test]
    async fn a_key_revoked_through_one_instance_ends_its_sessions_on_every_instance() {
        let a = Server::start();
        let b = a.another(Options::default());
        for round in 0..20 {
            let key: Value = a
                .post("/v1/keys", &a.admin_key, &json!({"name": format!("k{round}"), "scopes": ["tokens:read"]}))
                .await
                .json()
                .await
                .unwrap();
            let session = sign_in(&b, key["key"].as_str().unwrap()).await;
            assert_eq!(send(by_cookie(&b, &session, Method::GET, "/v1/tokens", true)).await.status(), 200);
            let path = format!("/v1/keys/{}", id(&key));
            assert_eq!(a.delete(&path, &a.admin_key).await.status(), 204);
            let status = send(by_cookie(&b, &session, Method::GET, "/v1/tokens", true)).await.status();
            assert_eq!(status, 401, "round {round}");
        }
    }
}
