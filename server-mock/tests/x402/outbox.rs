//! The settlement outbox across instances: what one instance recorded and could not settle is
//! settled by another once the first is gone.

use alloy_primitives::U256;
use reqwest::StatusCode;
use serde_json::Value;

use super::{answered_unsettled, ask, enable, offered};
use crate::common::Server;
use crate::common::facilitator::{Facilitator, PAY_TO, accepts};
use crate::common::hooks::eventually;
use crate::common::postgres;
use crate::common::wallet::Wallet;

postgres! {
    #[tokio::test]
    async fn an_upto_settlement_one_instance_could_not_make_is_made_by_another_once_it_is_gone() {
        let facilitator = Facilitator::start().await;
        let mut a = Server::start();
        let b = a.another(Default::default());
        enable(&a, &facilitator).await;
        let wallet = Wallet::new();
        facilitator.fund(wallet.address(), 1_000);
        let body = ask(&wallet, false);
        let offer = offered(&a, &body).await;

        // Through a: answered, and the facilitator is gone before a can settle.
        let upto = wallet.pay(accepts(&offer, "upto"), None, None);
        let json = answered_unsettled(&a, &facilitator, &body, &upto).await;
        let units: u64 = json["platform"]["settlement"]["amount"].as_str().unwrap().parse().unwrap();
        let settles = facilitator.calls("settle").len();

        // a dies; the facilitator comes back; b settles what a recorded, once.
        a.crash();
        facilitator.lock().down = false;
        eventually("the other instance to settle the payment", || async {
            (facilitator.balance(PAY_TO) == U256::from(units)).then_some(())
        })
        .await;
        assert_eq!(facilitator.balance(wallet.address()), U256::from(1_000 - units));
        let listed = b.get("/v1/usage", &b.admin_key).await;
        assert_eq!(listed.status(), StatusCode::OK);
        let totals: Value = listed.json().await.unwrap();
        assert_eq!(totals["totals"]["x402_settled"].as_str().map(str::to_string), Some(units.to_string()), "{totals}");
        assert!(facilitator.calls("settle").len() > settles);
    }
}
