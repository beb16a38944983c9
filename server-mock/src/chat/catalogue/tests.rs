//! The catalogue's reading and pricing.

use super::*;
use crate::chat::answer::Tokens;
use crate::credits::Credits;

fn model(extra: &str) -> Arc<Model> {
    let text = format!(
        "[[models]]\nid = \"m\"\nprovider = \"simulated\"\nprompt_price = 3\n\
         completion_price = 15\nquality = 0.9\nlatency_ms = 1\n{extra}"
    );
    Catalogue::parse(&text).unwrap().models()[0].clone()
}

#[test]
fn cached_prompt_tokens_are_charged_at_their_own_prices() {
    // Anthropic's prices for a Sonnet: 3 per 1k fresh, 0.3 read, 3.75 written (5 minutes),
    // 6 written (1 hour), 15 per 1k completion tokens.
    let m = model("cache_read_price = 0.3\ncache_write_price = 3.75\ncache_write_1h_price = 6\n");
    let tokens = Tokens {
        prompt: 10_000,
        completion: 200,
        cache_read: 6_000,
        cache_write: 2_000,
        cache_write_1h: 1_000,
        reasoning: 50,
    };
    // 1,000 fresh x 3 + 6,000 x 0.3 + 2,000 x 3.75 + 1,000 x 6 + 200 x 15, per 1k.
    let expected = 3_000 + 1_800 + 7_500 + 6_000 + 3_000;
    assert_eq!(m.charge(&tokens), Credits::from_nanos(expected * 1_000_000));
    // Unset prices are the prompt's.
    let plain = model("");
    assert_eq!(plain.charge(&tokens), plain.cost(10_000, 200));
    // The worst case takes the dearest prompt price: a write costs more than a fresh token.
    assert_eq!(
        m.worst(1_000, 100),
        Credits::from_nanos((6_000 + 1_500) * 1_000_000)
    );
    assert_eq!(plain.worst(1_000, 100), plain.cost(1_000, 100));
    // Counts a provider got wrong (more cached than prompt) never underflow.
    let odd = Tokens {
        prompt: 10,
        cache_read: 20,
        ..Tokens::default()
    };
    assert_eq!(m.charge(&odd), Credits::from_nanos(20 * 300_000));
}

#[test]
fn aliases_name_their_model_and_never_another() {
    let two = "[[models]]\nid = \"a\"\naliases = [\"claude-haiku-4-5\", \"small\"]\n\
               provider = \"simulated\"\nprompt_price = 1\ncompletion_price = 1\nquality = 0.5\n\
               latency_ms = 1\n\n[[models]]\nid = \"b\"\nprovider = \"simulated\"\n\
               prompt_price = 1\ncompletion_price = 1\nquality = 0.5\nlatency_ms = 1\n";
    let catalogue = Catalogue::parse(two).unwrap();
    let id = |name| catalogue.get(name).map(|m| m.id.clone());
    assert_eq!(
        (id("small"), id("claude-haiku-4-5"), id("a"), id("b")),
        (
            Some("a".into()),
            Some("a".into()),
            Some("a".into()),
            Some("b".into())
        )
    );
    assert_eq!(id("c"), None);
    for (change, why) in [
        (
            two.replace("\"small\"", "\"b\""),
            "model \"b\" is an alias of \"a\"",
        ),
        (two.replace("\"small\"", "\"a\""), "names a model already"),
        (
            two.replace("id = \"b\"", "id = \"small\""),
            "is an alias of \"a\"",
        ),
        (
            two.replace("\"small\"", "\"auto-cheap\""),
            "reserved for routing",
        ),
        (two.replace("\"small\"", "\"\""), "names a model already"),
    ] {
        let err = Catalogue::parse(&change).unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
}

#[test]
fn the_readme_s_worked_example_holds() {
    let text = "[[models]]\nid = \"m\"\nprovider = \"simulated\"\nprompt_price = 0.15\n\
                completion_price = 0.6\ncache_read_price = 0.075\nquality = 0.9\nlatency_ms = 1\n";
    let m = Catalogue::parse(text).unwrap().models()[0].clone();
    assert_eq!(m.cost(20, 12).to_string(), "0.0102");
    let cached = Tokens {
        cache_read: 16,
        ..Tokens::new(20, 12)
    };
    assert_eq!(m.charge(&cached).to_string(), "0.009");
}

#[test]
fn an_anthropic_model_reaches_the_messages_api_and_its_settings_are_its_own() {
    let entry = |provider: &str, extra: &str| {
        format!(
            "[[models]]\nid = \"c\"\nprovider = \"{provider}\"\nprompt_price = 3\n\
             completion_price = 15\nquality = 0.9\nlatency_ms = 1\n{extra}"
        )
    };
    let claude = Catalogue::parse(&entry("anthropic", "")).unwrap();
    let target = format!("{:?}", claude.models()[0].target);
    assert!(
        target.contains("\"https://api.anthropic.com/v1/messages\""),
        "{target}"
    );
    let own = Catalogue::parse(&entry("anthropic", "base_url = \"http://127.0.0.1:9/\"")).unwrap();
    let target = format!("{:?}", own.models()[0].target);
    assert!(
        target.contains("\"http://127.0.0.1:9/v1/messages\""),
        "{target}"
    );
    for extra in [
        "anthropic_beta = [\"x\"]",
        "anthropic_version = \"2023-06-01\"",
        "structured_outputs = true",
        "sampling_parameters = false",
    ] {
        let refused = Catalogue::parse(&entry(
            "openai",
            &format!("base_url = \"http://h/v1\"\n{extra}"),
        ));
        let why = refused.unwrap_err().to_string();
        assert!(
            why.contains("are for the anthropic provider"),
            "{extra}: {why}"
        );
    }
    let bad = Catalogue::parse(&entry("anthropic", "anthropic_beta = [\"a\\nb\"]"));
    assert!(
        bad.unwrap_err()
            .to_string()
            .contains("is not a header value")
    );
}
