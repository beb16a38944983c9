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
