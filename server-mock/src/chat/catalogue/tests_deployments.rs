//! Deployments and fallbacks as the catalogue reads them.

use super::*;
use crate::credits::Credits;

const MODEL: &str = "[[models]]\nid = \"m\"\nprompt_price = 1\ncompletion_price = 2\n\
                     quality = 0.9\nlatency_ms = 100\n";
const LOCAL: &str = "[[models]]\nid = \"local\"\nprovider = \"simulated\"\nprompt_price = 1\n\
                     completion_price = 1\nquality = 0.5\nlatency_ms = 1\n";

fn read(text: &str) -> Result<Catalogue, String> {
    Catalogue::parse(text).map_err(|err| err.to_string())
}

#[test]
fn a_deployment_is_its_model_with_its_own_fields_over_it() {
    let text = format!(
        "{MODEL}max_output_tokens = 500\nfallbacks = [\"local\"]\n\
         [[models.deployments]]\nprovider = \"azure\"\nresource = \"east\"\nweight = 3\n\
         upstream_model = \"gpt-east\"\nrpm = 600\n\
         [[models.deployments]]\nname = \"west\"\nprovider = \"azure\"\nresource = \"west\"\n\
         prompt_price = 5\ncompletion_price = 7\ntpm = 9000\n{LOCAL}"
    );
    let catalogue = read(&text).unwrap();
    let m = catalogue.get("m").unwrap();
    assert_eq!(
        m.named.0.name, "azure",
        "the model speaks its deployments' API"
    );
    assert_eq!(m.fallbacks, ["local"]);
    let [east, west] = &m.deployments[..] else {
        panic!("two deployments")
    };
    assert_eq!(
        east.deployment.as_deref(),
        Some("azure"),
        "named by provider"
    );
    assert_eq!(west.deployment.as_deref(), Some("west"));
    assert_eq!((east.share, west.share), ((3, 4), (1, 4)));
    assert_eq!(
        east.target.as_ref().unwrap().url(),
        "https://east.openai.azure.com/openai/v1/chat/completions"
    );
    assert_eq!(east.upstream_name(), "gpt-east");
    assert_eq!(west.upstream_name(), "m", "the model's id when unset");
    assert_eq!(
        (east.rpm, east.tpm, west.tpm),
        (Some(600), None, Some(9000))
    );
    assert_eq!(east.max_output_tokens, 500, "the model's, inherited");
    assert_eq!(east.cost(1000, 1000), Credits::from_nanos(3_000_000_000));
    assert_eq!(west.cost(1000, 1000), Credits::from_nanos(12_000_000_000));
    assert_eq!(
        m.worst(1000, 1000),
        west.cost(1000, 1000),
        "a request's worst case is at its dearest deployment's prices"
    );
    assert_eq!(m.slot, (0, 0));
    assert_eq!((east.slot, west.slot), ((0, 0), (0, 1)));
    // A model that lists none is its own one deployment.
    let local = catalogue.get("local").unwrap();
    assert_eq!(local.deployments.len(), 1);
    assert_eq!(local.deployments[0].deployment, None);
    assert_eq!(local.deployments[0].slot, (1, 0));
}

#[test]
fn what_a_deployment_or_a_fallback_cannot_be_is_named() {
    let deployment = |extra: &str| {
        format!("{MODEL}[[models.deployments]]\nprovider = \"groq\"\n{extra}\n{LOCAL}")
    };
    let cases = [
        (
            deployment("id = \"x\""),
            "deployment number 1: id is the model's",
        ),
        (deployment("quality = 0.1"), "quality is the model's"),
        (
            deployment("weight = 0"),
            "weight, rpm and tpm must be at least 1",
        ),
        (
            deployment("rpm = 0"),
            "weight, rpm and tpm must be at least 1",
        ),
        (deployment("name = \"a b\""), "a name is 1 to 64 letters"),
        (deployment("colour = 1"), "unknown field `colour`"),
        (
            deployment("resource = \"r\""),
            "resource fills a preset's base URL",
        ),
        (
            deployment("[[models.deployments]]\nprovider = \"groq\""),
            "two deployments are named \"groq\"",
        ),
        (
            deployment("[[models.deployments]]\nprovider = \"anthropic\"\nname = \"c\""),
            "speaks another API than the model's first deployment",
        ),
        (
            format!("{MODEL}provider = \"simulated\"\ndeployments = []\n"),
            "deployments is empty",
        ),
        (
            format!("{MODEL}provider = \"simulated\"\nname = \"x\"\n"),
            "name is a deployment's",
        ),
        (
            format!("{MODEL}provider = \"simulated\"\nfallbacks = [\"nope\"]\n"),
            "fallback \"nope\" is not in the catalogue",
        ),
        (
            format!("{MODEL}provider = \"simulated\"\nfallbacks = [\"m\"]\n"),
            "fallback \"m\" is the model itself",
        ),
        (
            format!("{MODEL}provider = \"simulated\"\nfallbacks = [\"local\", \"local\"]\n{LOCAL}"),
            "fallback \"local\" is listed twice",
        ),
    ];
    for (text, expected) in cases {
        let why = read(&text).map(|_| ()).unwrap_err();
        assert!(why.contains(expected), "{expected:?} in {why:?}");
        assert!(why.starts_with("model \"m\""), "{why}");
    }
}
