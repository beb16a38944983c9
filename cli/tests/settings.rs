//! `tokctl settings show|set` against the real server: the workspace's `store_bodies`, as a
//! table, as JSON, and as the one value `--quiet` prints; a change is audited, and a body sent
//! afterwards is kept (redacted) by the request log.

mod common;

use common::{Env, stderr, stdout};
use serde_json::json;

#[test]
fn show_and_set_store_bodies_as_people_and_scripts_read_them() {
    let env = Env::new();
    let shown = env.json(&["settings", "show"]);
    assert_eq!(shown, json!({"store_bodies": false, "updated_at": null}));

    let output = env.tokctl().args(["settings", "show"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let table = stdout(&output);
    assert!(
        table.contains("store bodies") && table.contains("no"),
        "{table}"
    );
    assert!(table.contains("never"), "{table}");

    let set = env.json(&["settings", "set", "--store-bodies", "true"]);
    assert_eq!(set["store_bodies"], true, "{set}");
    assert!(set["updated_at"].is_string(), "{set}");

    // A request sent now keeps its body, the planted key redacted.
    let planted = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
    let url = format!("{}/chat/completions", env.base_url);
    let body = json!({"model": "sim-mini", "messages": [{"role": "user", "content": format!("key {planted}")}]});
    let status = env.block_on(async {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(&env.admin_key)
            .header("x-request-id", "req-kept")
            .json(&body)
            .send()
            .await
            .expect("send")
            .status()
            .as_u16()
    });
    assert_eq!(status, 200);
    let entry = env.json(&["requests", "show", "req-kept"]);
    let kept = entry["request_body"].as_str().expect("request_body");
    assert!(
        kept.contains("key [REDACTED]") && !kept.contains(planted),
        "{kept}"
    );

    let output = env
        .tokctl()
        .args(["settings", "show", "--quiet"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "store_bodies=true\n");

    let output = env
        .tokctl()
        .args(["settings", "set", "--store-bodies", "false", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "store_bodies=false\n");

    let audit = env.json(&["audit", "list", "--action", "settings.updated"]);
    assert_eq!(audit.as_array().map(Vec::len), Some(2), "{audit}");
}

#[test]
fn set_needs_a_value_and_a_credential_with_the_scope() {
    let env = Env::new();
    // Nothing to change, or not a boolean: a usage error before any request.
    for args in [
        &["settings", "set"][..],
        &["settings", "set", "--store-bodies", "yes"][..],
    ] {
        let output = env.tokctl().args(args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let (_, reader) = env.create("reader", &["settings:read"]);
    let output = env
        .tokctl()
        .env("TOKCTL_API_KEY", &reader)
        .args(["settings", "set", "--store-bodies", "true"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("settings:write"),
        "{}",
        stderr(&output)
    );
    let output = env
        .tokctl()
        .env("TOKCTL_API_KEY", &reader)
        .args(["settings", "show", "-o", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}
