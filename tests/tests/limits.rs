//! A token's spending limit through the SDK, against the real server: set at creation, spent
//! by chat requests made with the token until the server refuses one, read back from the token
//! and from the usage of that token alone, changed and removed.

mod common;

use common::TestServer;
use tokctl_sdk::chat::{ChatMessage, ChatRequest};
use tokctl_sdk::{ChangeLimits, CreateToken, Decimal, LimitReset};

#[tokio::test]
async fn a_limited_token_spends_until_refused_and_its_limit_changes() {
    let server = TestServer::start().await;
    let admin = server.admin();
    // One model named (`auto` would reserve the dearest candidate's worst case), five tokens:
    // always a full answer, so what one request costs is also its worst case.
    let request = ChatRequest::new("sim-mini")
        .message(ChatMessage::user("How are limits kept?"))
        .max_tokens(5);
    let answer = admin.chat().create(&request).await.unwrap();
    let cost = answer.platform.expect("platform").credits_consumed;

    let created = admin
        .tokens()
        .create(
            &CreateToken::new("agent")
                .scope("chat:write")
                .credit_limit(cost * Decimal::from(3))
                .limit_reset(LimitReset::Daily),
        )
        .await
        .unwrap();
    let limits = created.limits.clone().expect("limits on create");
    assert_eq!(limits.credit_limit, cost * Decimal::from(3));
    assert_eq!(limits.reset, LimitReset::Daily);
    assert!(limits.resets_at.is_some());

    let agent = server.client(created.secret.as_ref().unwrap().expose());
    for _ in 0..3 {
        agent.chat().create(&request).await.unwrap();
    }
    let err = agent.chat().create(&request).await.unwrap_err();
    let tokctl_sdk::Error::Api(api) = &err else {
        panic!("an API error: {err:?}")
    };
    assert_eq!(
        (api.status, api.code.as_str()),
        (402, "credit_limit_reached")
    );
    assert!(api.message.contains("resets at"), "{}", api.message);
    let wait = api.retry_after.expect("Retry-After until the reset");
    assert!(wait.as_secs() >= 1 && wait.as_secs() <= 86_400, "{wait:?}");

    let token = admin.tokens().get(&created.id).await.unwrap();
    let limits = token.limits.expect("limits");
    assert_eq!(limits.spent, cost * Decimal::from(3));
    assert_eq!(limits.remaining, Decimal::ZERO);
    let usage = admin.usage().token(&created.id).get().await.unwrap();
    assert_eq!(usage.totals.requests, 3);
    assert_eq!(usage.totals.credits, cost * Decimal::from(3));
    let workspace = admin.usage().get().await.unwrap();
    assert_eq!(workspace.totals.requests, 4, "the admin key's request too");

    let raised = admin
        .tokens()
        .change_limits(
            &created.id,
            &ChangeLimits::new().credit_limit(cost * Decimal::from(4)),
        )
        .await
        .unwrap();
    assert_eq!(raised.limits.unwrap().remaining, cost);
    agent.chat().create(&request).await.unwrap();
    let removed = admin
        .tokens()
        .change_limits(&created.id, &ChangeLimits::remove())
        .await
        .unwrap();
    assert!(removed.limits.is_none());
    agent.chat().create(&request).await.unwrap();

    let entries = admin
        .audit()
        .list(&tokctl_sdk::ListAudit::new().action("token.limit_changed"))
        .await
        .unwrap();
    assert_eq!(entries.data.len(), 2);
    let details = entries.data[0].details.as_ref().expect("details").get();
    assert!(
        details.contains(r#""after":{"credit_limit":null"#),
        "{details}"
    );
}
