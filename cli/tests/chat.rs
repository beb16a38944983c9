//! `tokctl chat`, `tokctl models`, `tokctl usage` against the real gateway.

mod common;

use std::io::Write;

use common::{Env, stderr, stdout};
use serde_json::Value;

#[test]
fn one_shot_prints_the_answer_and_a_footer_and_streaming_prints_the_same() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args(["chat", "-m", "sim-fast", "hello", "there"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("[sim-fast] You said: hello there"),
        "{text}"
    );
    let footer = stderr(&output);
    assert!(
        footer.contains("— sim-fast ·")
            && footer.contains("credits")
            && footer.contains("requested model sim-fast"),
        "{footer}"
    );

    let streamed = env
        .tokctl()
        .args(["chat", "--stream", "-m", "sim-fast", "hello", "there"])
        .output()
        .unwrap();
    assert!(streamed.status.success());
    assert_eq!(stdout(&streamed), text);
    assert!(stderr(&streamed).contains("credits"));
}

#[test]
fn piped_stdin_is_the_prompt_and_options_reach_the_gateway() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args([
            "chat",
            "-m",
            "auto",
            "--cost-weight",
            "1",
            "--quality-weight",
            "0",
            "--max-tokens",
            "4",
            "-o",
            "json",
        ])
        .write_stdin("what is in this file?\n")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["platform"]["routed_model"], "sim-mini");
    assert_eq!(answer["usage"]["completion_tokens"], 4);
    assert!(
        answer["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .contains("You said: what")
    );
}

#[test]
fn chat_errors_exit_with_documented_codes() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args(["chat", "-m", "nope", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(stderr(&output).contains("model_not_found"));
    let output = env
        .tokctl()
        .args(["chat", "--budget", "0.000001", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("budget_exceeded"));
    assert_eq!(stderr(&output).lines().count(), 1);
    let output = env.tokctl().args(["chat"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "no prompt and no terminal");
}

#[test]
fn models_and_usage_show_the_catalogue_and_the_ledger() {
    let env = Env::new();
    let models = env.json(&["models"]);
    assert_eq!(models.as_array().unwrap().len(), 4);
    assert_eq!(models[0]["health"]["state"], "closed");
    let output = env.tokctl().args(["models"]).output().unwrap();
    // Price, quality, the time to first token routing uses, the circuit, recent errors.
    assert!(
        stdout(&output)
            .lines()
            .any(|l| l == "sim-pro\tsimulated\t3\t9\t0.95\t900 ms typical\tclosed\t-"),
        "{}",
        stdout(&output)
    );

    // Amounts read from the JSON text as exact decimals: the total is their exact sum.
    let exact = |args: &[&str]| {
        let output = env
            .tokctl()
            .args(args)
            .args(["-o", "json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}");
        output.stdout
    };
    let mut credits = tokctl_sdk::Decimal::ZERO;
    for model in ["sim-mini", "sim-pro", "sim-mini"] {
        let answer: tokctl_sdk::ChatCompletion =
            serde_json::from_slice(&exact(&["chat", "-m", model, "count me"])).unwrap();
        credits += answer.platform.unwrap().credits_consumed;
    }
    let usage: tokctl_sdk::UsageSummary = serde_json::from_slice(&exact(&["usage"])).unwrap();
    assert_eq!(usage.totals.requests, 3);
    assert_eq!(usage.totals.credits, credits);
    let plain = env.tokctl().args(["usage"]).output().unwrap();
    let lines = stdout(&plain);
    assert!(
        lines.lines().any(|l| l.contains("\tsim-mini\t2\t")),
        "{lines}"
    );
    assert!(lines.lines().last().unwrap().starts_with("total\t-\t3\t"));
}

#[test]
fn a_session_on_a_terminal_keeps_the_conversation_and_switches_models() {
    let env = Env::new();
    let mut child = env
        .on_terminal("chat -m sim-fast")
        .spawn()
        .expect("util-linux `script` runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"first question\n/model sim-mini\nsecond question\n/exit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let screen = stdout(&output);
    assert!(
        screen.contains("[sim-fast] You said: first question"),
        "{screen}"
    );
    assert!(screen.contains("(model: sim-mini)"), "{screen}");
    assert!(
        screen.contains("[sim-mini] You said: second question"),
        "{screen}"
    );
    let usage = env.json(&["usage"]);
    assert_eq!(usage["totals"]["requests"], 2);
    // The second request carried the whole conversation: more prompt tokens than the first.
    let rows = usage["data"].as_array().unwrap();
    let prompt = |model: &str| {
        rows.iter().find(|r| r["model"] == model).unwrap()["prompt_tokens"]
            .as_u64()
            .unwrap()
    };
    assert!(prompt("sim-mini") > prompt("sim-fast") + 10);
}

#[test]
fn ctrl_c_cancels_the_answer_in_progress_not_the_session() {
    // A token a second: Ctrl-C, pressed once the first is on screen, has 7 s to land inside the
    // 8-token answer, however loaded the machine.
    let env = Env::with_sim_delay(std::time::Duration::from_secs(1));
    let mut child = env
        .on_terminal("chat -m sim-pro --max-tokens 8")
        .spawn()
        .expect("util-linux `script` runs");
    let mut keys = child.stdin.take().unwrap();
    let (tx, screen) = std::sync::mpsc::channel::<String>();
    let mut out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = [0u8; 1024];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    let mut wait_for = |text: &str| {
        while !seen.contains(text) {
            let chunk = screen
                .recv_timeout(std::time::Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("waited for {text:?}; the screen shows:\n{seen}"));
            seen.push_str(&chunk);
        }
    };
    keys.write_all(b"first question\n").unwrap();
    wait_for("[sim-pro]");
    keys.write_all(b"\x03").unwrap();
    wait_for("(answer cancelled)");
    keys.write_all(b"second question\n").unwrap();
    wait_for("You said: second");
    wait_for("credits");
    keys.write_all(b"/exit\n").unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "the session survived Ctrl-C and ended with /exit"
    );
    // The cancelled answer was billed only for what was streamed before Ctrl-C.
    let usage = env.json(&["usage"]);
    assert_eq!(usage["totals"]["requests"], 2);
    assert!(usage["totals"]["completion_tokens"].as_u64().unwrap() < 16);
}

#[test]
fn an_interrupted_stream_ends_its_line_and_says_so() {
    use std::io::Read;
    // A token a second: SIGINT, sent once the first is on screen, lands well inside the answer
    // (at least 18 tokens), however loaded the machine.
    let env = Env::with_sim_delay(std::time::Duration::from_secs(1));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tokctl"));
    for var in Env::UNSET {
        child.env_remove(var);
    }
    let mut child = child
        .envs(env.vars())
        .env("TOKCTL_API_KEY", &env.admin_key)
        .args([
            "chat",
            "--stream",
            "-m",
            "sim-pro",
            "--max-tokens",
            "60",
            "tell me",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut shown = Vec::new();
    let mut buf = [0u8; 256];
    // The answer has begun: its first words are on stdout, and no line end yet.
    while !String::from_utf8_lossy(&shown).contains("[sim-pro]") {
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "stdout ended before the answer began");
        shown.extend_from_slice(&buf[..n]);
    }
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    out.read_to_end(&mut shown).unwrap();
    let output = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&shown).into_owned();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(shown.ends_with('\n'), "the line is ended: {shown:?}");
    assert_eq!(shown.matches('\n').count(), 1, "{shown:?}");
    assert_eq!(
        stderr(&output).trim_end(),
        "tokctl: interrupted: the answer above is incomplete"
    );
}
