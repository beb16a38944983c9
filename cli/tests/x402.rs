//! `tokctl x402 ...` against the real server: an operator turning x402 on for a workspace,
//! reading the terms back, fixing a typo the server names, and turning it off from CI.

mod common;

use common::{Env, stderr, stdout};

const SET: [&str; 18] = [
    "x402",
    "set",
    "--pay-to",
    "0x209693bc6afc0c5328ba36faf03c514ef312287c",
    "--network",
    "eip155:84532",
    "--asset",
    "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    "--asset-name",
    "USDC",
    "--asset-version",
    "2",
    "--decimals",
    "6",
    "--credit-price",
    "10000",
    "--facilitator",
    "http://127.0.0.1:9/",
];

#[test]
fn the_terms_are_set_shown_and_removed() {
    let env = Env::new();
    let off = env.tokctl().args(["x402", "show"]).output().unwrap();
    assert!(off.status.success(), "{}", stderr(&off));
    assert!(stdout(&off).starts_with("x402 is off"), "{}", stdout(&off));
    assert_eq!(env.json(&["x402", "show"])["enabled"], false);

    let set = env.json(&SET);
    assert_eq!(set["enabled"], true);
    // Stored in its checksum form, the facilitator without its trailing slash.
    assert_eq!(set["pay_to"], "0x209693Bc6afc0C5328bA36FaF03C514EF312287C");
    assert_eq!(set["facilitator_url"], "http://127.0.0.1:9");
    let shown = env.tokctl().args(["x402", "show"]).output().unwrap();
    let text = stdout(&shown);
    assert!(text.contains("10000 units a credit"), "{text}");
    let quiet = env.tokctl().args(["x402", "show", "-q"]).output().unwrap();
    assert_eq!(stdout(&quiet), "enabled\n");

    // A wrong value is one line naming the field.
    let mut bad = SET;
    bad[5] = "base-sepolia";
    let refused = env.tokctl().args(bad).output().unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert_eq!(stderr(&refused).lines().count(), 1, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("network must be"),
        "{}",
        stderr(&refused)
    );

    // Off a terminal, removing them needs --yes.
    let asked = env.tokctl().args(["x402", "disable"]).output().unwrap();
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    let removed = env
        .tokctl()
        .args(["x402", "disable", "--yes"])
        .output()
        .unwrap();
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_eq!(stdout(&removed), "x402 is off\n");
    let again = env
        .tokctl()
        .args(["x402", "disable", "--yes"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(5), "{}", stderr(&again));
    assert!(stderr(&again).contains("not on"), "{}", stderr(&again));
}

#[path = "../../server-mock/tests/common/facilitator.rs"]
mod facilitator;

use std::os::unix::fs::PermissionsExt;

/// A test wallet's key (anvil's second account) and address.
const KEY: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const ADDRESS: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

#[test]
fn chat_pays_with_a_wallet_key_file_within_the_most_it_may_pay() {
    let env = Env::new();
    let facilitator = env.block_on(facilitator::Facilitator::start());
    facilitator.fund(ADDRESS.parse().unwrap(), 10_000);
    let mut set = SET;
    set[17] = &facilitator.url;
    let terms = env.tokctl().args(set).output().unwrap();
    assert!(terms.status.success(), "{}", stderr(&terms));

    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("wallet.key");
    std::fs::write(&key, format!("{KEY}\n")).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let chat = |max: &str| {
        env.tokctl()
            .args([
                "chat",
                "-m",
                "sim-mini",
                "--max-tokens",
                "200",
                "--wallet-key-file",
            ])
            .arg(&key)
            .args(["--max-payment", max, "hello there"])
            .output()
            .unwrap()
    };
    let paid = chat("1000");
    assert!(paid.status.success(), "{}", stderr(&paid));
    assert!(!stdout(&paid).is_empty());
    let said = stderr(&paid);
    assert!(
        said.contains("— paid ") && said.contains("(upto, settled) on eip155:84532: 0x"),
        "{said}"
    );
    assert!(!said.contains(&KEY[2..]), "the key was printed");

    // An offer over the limit: one line, nothing signed.
    let verified = facilitator.calls("verify").len();
    let refused = chat("204");
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert_eq!(stderr(&refused).lines().count(), 1, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("at most 204"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(facilitator.calls("verify").len(), verified);

    // A key others may read is refused before anything is sent.
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let loose = chat("1000");
    assert_eq!(loose.status.code(), Some(1), "{}", stderr(&loose));
    assert!(stderr(&loose).contains("chmod 600"), "{}", stderr(&loose));

    // Without a wallet, the 402 says which flags pay it.
    let unpaid = env
        .tokctl()
        .args(["chat", "-m", "sim-mini", "--wallet", ADDRESS, "hello"])
        .output()
        .unwrap();
    assert_eq!(unpaid.status.code(), Some(1), "{}", stderr(&unpaid));
    assert!(
        stderr(&unpaid).contains("--wallet-key-file FILE --max-payment UNITS"),
        "{}",
        stderr(&unpaid)
    );
    // --wallet-key-file without --max-payment is a usage error.
    let usage = env
        .tokctl()
        .args(["chat", "--wallet-key-file"])
        .arg(&key)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}
