//! The README read top to bottom by a new user in a fresh clone: every link it gives opens a
//! file of the repository, it says which Rust it needs, and the names its walk-throughs create
//! do not collide (each section's commands run after the ones before it, on one server).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The Markdown files a user reads: the README and everything under docs/.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files
}

/// The targets of `[text](target)` links.
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
        .collect()
}

#[test]
fn every_link_opens_a_file_of_the_repository() {
    for doc in documents() {
        let text = read(&doc);
        assert!(
            !text.contains("../shared"),
            "{} points outside the repository",
            doc.display()
        );
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let path = target.split('#').next().unwrap_or_default();
            if path.is_empty() {
                continue;
            }
            let resolved = doc.parent().expect("a folder").join(path);
            assert!(
                resolved.exists(),
                "{}: the link {target:?} opens nothing",
                doc.display()
            );
        }
    }
    let readme = read(&root().join("README.md"));
    assert!(
        links(&readme).iter().any(|l| l == "docs/api.md"),
        "the README links the API description"
    );
}

#[test]
fn the_readme_states_the_rust_version_the_workspace_needs() {
    let manifest = read(&root().join("Cargo.toml"));
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("rust-version = "))
        .expect("rust-version in Cargo.toml")
        .trim_matches('"');
    let readme = read(&root().join("README.md"));
    assert!(
        readme.contains(&format!("Rust {version} or later")),
        "the README should say Rust {version}"
    );
}

#[test]
fn the_walkthroughs_create_each_name_once() {
    let readme = read(&root().join("README.md"));
    // Token names and key names, each with the line that creates it.
    let mut created: BTreeMap<(&str, String), Vec<usize>> = BTreeMap::new();
    let mut in_shell = false;
    for (number, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            in_shell = line == "```sh";
            continue;
        }
        if !in_shell {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        for window in words.windows(4) {
            if let ["tokctl", noun @ ("tokens" | "keys"), "create", name] = window {
                created
                    .entry((noun, name.to_string()))
                    .or_default()
                    .push(number + 1);
            }
        }
        if line.contains("-X POST $API/tokens ") {
            // curl's body is on the next line: `-d '{"name": "..."'`.
            let body = readme.lines().nth(number + 1).unwrap_or_default();
            let name = body
                .split("\"name\": \"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .expect("a curl create names its token");
            created
                .entry(("tokens", name.to_string()))
                .or_default()
                .push(number + 2);
        }
    }
    let creates: usize = created.values().map(Vec::len).sum();
    assert!(creates >= 3, "found the CLI and curl creates: {created:?}");
    for ((noun, name), lines) in &created {
        assert_eq!(
            lines.len(),
            1,
            "{noun} {name:?} is created on README lines {lines:?}: the later one gets 409"
        );
    }
}

/// The `path/like.rs` or `folder/` names in backticks in `text`.
fn named_paths(text: &str) -> Vec<&str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| name.ends_with(".rs") || name.ends_with('/') || name.ends_with(".md"))
        .filter(|name| {
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        })
        .collect()
}

#[test]
fn architecture_names_only_paths_that_exist() {
    let text = read(&root().join("ARCHITECTURE.md"));
    let named = named_paths(&text);
    assert!(named.len() >= 40, "the map names the rooms: {named:?}");
    // Paths are from the workspace root, or (for the server's rooms) from server-mock/src/.
    let bases = [root(), root().join("server-mock/src")];
    for name in named {
        assert!(
            bases.iter().any(|base| base.join(name).exists()),
            "ARCHITECTURE.md names {name}, which does not exist"
        );
    }
}

#[test]
fn the_readme_s_catalogue_examples_are_one_valid_catalogue_with_deployments_and_fallbacks() {
    let readme = read(&root().join("README.md"));
    let blocks: Vec<&str> = readme
        .split("```toml\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .filter(|block| block.contains("[[models]]"))
        .collect();
    assert!(blocks.len() >= 3, "{blocks:?}");
    // The examples name the built-in models as fallbacks.
    let text = format!(
        "{}\n{}",
        blocks.join("\n"),
        tokctl_server::chat::catalogue::DEFAULT_CATALOGUE
    );
    let catalogue = tokctl_server::chat::catalogue::Catalogue::parse(&text)
        .unwrap_or_else(|err| panic!("the README's catalogue examples: {err}"));
    let shown = catalogue
        .models()
        .iter()
        .find(|m| m.deployments.len() >= 2 && !m.fallbacks.is_empty());
    assert!(
        shown.is_some(),
        "the README shows a model with two deployments and a fallback"
    );
}
