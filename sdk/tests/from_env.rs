//! `Client::from_env`, alone in its own test binary because it changes the environment.

use tokctl_sdk::{Client, Error};

#[test]
fn from_env_reads_the_key_and_both_base_urls() {
    // SAFETY: this binary has this one test, so no other thread reads the environment.
    unsafe {
        std::env::remove_var("TOKCTL_API_KEY");
        std::env::remove_var("TOKCTL_BASE_URL");
        std::env::remove_var("TOKCTL_CHAT_BASE_URL");
    }
    assert!(matches!(Client::from_env(), Err(Error::Config(m)) if m.contains("TOKCTL_API_KEY")));

    unsafe {
        std::env::set_var("TOKCTL_API_KEY", "tka_from_env");
    }
    let client = Client::from_env().unwrap();
    assert_eq!(client.base_url().as_str(), "http://127.0.0.1:8080/v1");
    assert_eq!(client.chat_base_url().as_str(), "http://127.0.0.1:8080/");
    assert!(!format!("{client:?}").contains("tka_from_env"));

    unsafe {
        std::env::set_var("TOKCTL_BASE_URL", "https://tokens.example.com/v1/");
        std::env::set_var("TOKCTL_CHAT_BASE_URL", "https://chat.example.com");
    }
    let client = Client::from_env().unwrap();
    assert_eq!(client.base_url().as_str(), "https://tokens.example.com/v1");
    assert_eq!(client.chat_base_url().host_str(), Some("chat.example.com"));
}
