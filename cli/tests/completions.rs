//! The committed completion scripts match what the current command line generates.

const SHELLS: [(&str, &str); 5] = [
    ("bash", "tokctl.bash"),
    ("zsh", "_tokctl"),
    ("fish", "tokctl.fish"),
    ("powershell", "_tokctl.ps1"),
    ("elvish", "tokctl.elv"),
];

#[test]
fn committed_completions_are_fresh() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../completions");
    for (shell, file) in SHELLS {
        let output = assert_cmd::Command::cargo_bin("tokctl")
            .unwrap()
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(output.status.success());
        let committed = std::fs::read(dir.join(file)).unwrap_or_default();
        assert!(
            committed == output.stdout,
            "completions/{file} is stale: run `cargo run -p tokctl -- completions {shell} > completions/{file}`"
        );
    }
}

#[test]
fn a_closed_pipe_ends_completions_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("tokctl"))
        .args(["completions", "bash"])
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}
