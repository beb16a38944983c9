//! Each rule of the breaker, on made-up instants.

use std::time::{Duration, Instant};

use super::*;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn failure(cause: &str) -> Verdict<'_> {
    Verdict::Failure {
        cause,
        retry_after: None,
    }
}

fn asked(seconds: u64) -> Verdict<'static> {
    Verdict::Failure {
        cause: "HTTP 429",
        retry_after: Some(secs(seconds)),
    }
}

/// A breaker under the default policy and the moment it was made.
fn breaker() -> (Breaker, Instant) {
    let t0 = Instant::now();
    (Breaker::new(Policy::default(), t0), t0)
}

/// Lets a request through at `at` and records `verdict` for it.
fn attempt(breaker: &mut Breaker, at: Instant, verdict: Verdict<'_>) -> Pass {
    let pass = breaker.admit(at).expect("let through");
    breaker.record(pass, verdict, at);
    pass
}

#[test]
fn three_failures_in_a_row_open_it_until_the_cooldown_ends() {
    let (mut b, t0) = breaker();
    attempt(&mut b, t0, failure("timed out"));
    attempt(&mut b, t0, failure("timed out"));
    assert_eq!(b.state(t0), State::Closed);
    attempt(&mut b, t0, failure("timed out"));
    assert_eq!(b.state(t0), State::Open);
    let refused = b.admit(t0 + secs(9)).unwrap_err();
    assert_eq!(refused.until, Some(t0 + secs(10)));
    assert_eq!(refused.why, "3 failures in a row, last: timed out");
    assert_eq!(b.open_until(t0 + secs(9)), Some(t0 + secs(10)));
    // At the deadline it is half-open: one probe, and nobody else while it is out.
    assert_eq!(b.state(t0 + secs(10)), State::HalfOpen);
    assert_eq!(b.admit(t0 + secs(10)), Ok(Pass::Probe));
    assert_eq!(b.admit(t0 + secs(10)).unwrap_err().until, None);
    b.record(Pass::Probe, Verdict::Success, t0 + secs(11));
    assert_eq!(b.state(t0 + secs(11)), State::Closed);
    assert_eq!(b.admit(t0 + secs(11)), Ok(Pass::Normal));
}

#[test]
fn a_success_between_failures_starts_the_count_again() {
    let (mut b, t0) = breaker();
    attempt(&mut b, t0, failure("HTTP 500"));
    attempt(&mut b, t0, failure("HTTP 500"));
    attempt(&mut b, t0, Verdict::Success);
    assert_eq!(b.failures_in_a_row(), 0);
    attempt(&mut b, t0, failure("HTTP 500"));
    attempt(&mut b, t0, failure("HTTP 500"));
    assert_eq!(b.failures_in_a_row(), 2);
    // 4 failures, never 3 in a row, and too few requests (5) for the rate to count.
    assert_eq!(b.state(t0), State::Closed);
    attempt(&mut b, t0, failure("HTTP 500"));
    assert_eq!(b.state(t0), State::Open);
}

#[test]
fn half_failing_over_ten_requests_opens_it_and_fewer_requests_do_not() {
    let (mut b, t0) = breaker();
    for i in 0..9 {
        let verdict = if i % 2 == 0 {
            Verdict::Success
        } else {
            failure("HTTP 503")
        };
        attempt(&mut b, t0 + secs(i), verdict);
    }
    // 4 of 9: too few requests to judge, and under half.
    assert_eq!(b.state(t0 + secs(9)), State::Closed);
    attempt(&mut b, t0 + secs(9), failure("HTTP 503"));
    // 5 of 10 failed, never more than one in a row.
    assert_eq!(b.state(t0 + secs(9)), State::Open);
    assert_eq!(
        b.admit(t0 + secs(9)).unwrap_err().why,
        "5 of 10 requests failed in 60 s, last: HTTP 503"
    );
}

#[test]
fn failures_older_than_the_window_do_not_count() {
    let (mut b, t0) = breaker();
    for _ in 0..5 {
        attempt(&mut b, t0, Verdict::Success);
    }
    for _ in 0..2 {
        attempt(&mut b, t0, failure("HTTP 500"));
        attempt(&mut b, t0, Verdict::Success);
    }
    // A minute and more later the 9 old requests are gone: 1 failure of 1 request is too few.
    let later = t0 + secs(61);
    attempt(&mut b, later, failure("HTTP 500"));
    assert_eq!(b.recent(later), (1, 1));
    assert_eq!(b.state(later), State::Closed);
    // Within the window they still count: 3 of 10 is under half, so it stays closed.
    let (mut c, t0) = breaker();
    for _ in 0..7 {
        attempt(&mut c, t0, Verdict::Success);
    }
    attempt(&mut c, t0, failure("HTTP 500"));
    attempt(&mut c, t0, Verdict::Success);
    attempt(&mut c, t0 + secs(30), failure("HTTP 500"));
    assert_eq!(c.recent(t0 + secs(30)), (2, 10));
}

/// Opens `b` at `at` with three failures in a row (or a failed probe when half-open).
fn fail_until_open(b: &mut Breaker, at: Instant) {
    while b.state(at) != State::Open {
        attempt(b, at, failure("connection refused"));
    }
}

#[test]
fn each_reopening_doubles_the_cooldown_up_to_the_cap_and_a_success_resets_it() {
    let (mut b, t0) = breaker();
    let mut at = t0;
    let mut waits = Vec::new();
    for _ in 0..8 {
        fail_until_open(&mut b, at);
        let until = b.open_until(at).unwrap();
        waits.push((until - at).as_secs());
        at = until;
    }
    assert_eq!(waits, [10, 20, 40, 80, 160, 300, 300, 300]);
    // The probe at the last deadline succeeds: closed, and the next opening is 10 s again.
    attempt(&mut b, at, Verdict::Success);
    assert_eq!(b.state(at), State::Closed);
    fail_until_open(&mut b, at);
    assert_eq!(b.open_until(at), Some(at + secs(10)));
}

#[test]
fn a_streamed_probe_closes_it_at_its_first_token_but_keeps_the_doubling_until_a_whole_answer() {
    let (mut b, t0) = breaker();
    fail_until_open(&mut b, t0);
    let at = t0 + secs(10);
    assert_eq!(b.admit(at), Ok(Pass::Probe));
    b.record(Pass::Probe, Verdict::Answering, at);
    assert_eq!(b.state(at), State::Closed);
    assert_eq!(b.recent(at), (0, 0), "a stream is counted when it ends");
    assert_eq!(
        b.admit(at),
        Ok(Pass::Normal),
        "others need not wait for the stream's end"
    );
    // Its stream is cut: open again at once, for twice as long.
    b.record(Pass::Probe, failure("cut"), at);
    assert_eq!(b.open_until(at), Some(at + secs(20)));
    // This time a probe's stream ends whole: the next opening is back to the cooldown.
    let at = at + secs(20);
    assert_eq!(b.admit(at), Ok(Pass::Probe));
    b.record(Pass::Probe, Verdict::Answering, at);
    b.record(Pass::Probe, Verdict::Success, at);
    fail_until_open(&mut b, at);
    assert_eq!(b.open_until(at), Some(at + secs(10)));
}

#[test]
fn a_failed_probe_reopens_it_at_once() {
    let (mut b, t0) = breaker();
    fail_until_open(&mut b, t0);
    let at = t0 + secs(10);
    assert_eq!(attempt(&mut b, at, failure("timed out")), Pass::Probe);
    assert_eq!(b.state(at), State::Open);
    assert_eq!(b.open_until(at), Some(at + secs(20)));
    assert_eq!(b.why(), "its probe failed: timed out");
}

#[test]
fn retry_after_sets_the_cooldown_exactly_capped_at_the_maximum() {
    let (mut b, t0) = breaker();
    attempt(&mut b, t0, asked(30));
    assert_eq!(b.open_until(t0), Some(t0 + secs(30)));
    assert_eq!(b.why(), "the upstream asked for 30 s (429 Retry-After)");
    let (mut c, t0) = breaker();
    attempt(&mut c, t0, asked(3_600));
    assert_eq!(c.open_until(t0), Some(t0 + secs(300)));
    // A probe answered 429 with its own Retry-After: that long, not the doubled cooldown.
    let (mut d, t0) = breaker();
    fail_until_open(&mut d, t0);
    attempt(&mut d, t0 + secs(10), asked(2));
    assert_eq!(d.open_until(t0 + secs(10)), Some(t0 + secs(12)));
}

#[test]
fn a_late_failure_extends_an_open_deadline_and_never_shortens_it() {
    let (mut b, t0) = breaker();
    // Three requests let through while closed; the circuit opens on the first's 429.
    let passes: Vec<Pass> = (0..3).map(|_| b.admit(t0).unwrap()).collect();
    b.record(passes[0], asked(30), t0);
    assert_eq!(b.open_until(t0), Some(t0 + secs(30)));
    // The others fail later: a shorter Retry-After and a plain failure change nothing ...
    b.record(passes[1], asked(5), t0 + secs(1));
    b.record(passes[2], failure("timed out"), t0 + secs(2));
    assert_eq!(b.open_until(t0 + secs(2)), Some(t0 + secs(30)));
    // ... a longer one pushes the deadline out.
    b.record(Pass::Normal, asked(60), t0 + secs(3));
    assert_eq!(b.open_until(t0 + secs(3)), Some(t0 + secs(63)));
}

#[test]
fn a_probe_without_a_verdict_frees_its_slot_at_once() {
    let (mut b, t0) = breaker();
    fail_until_open(&mut b, t0);
    let at = t0 + secs(10);
    assert_eq!(b.admit(at), Ok(Pass::Probe));
    assert!(b.admit(at).is_err(), "one probe at a time");
    // The client went away: the next request is the probe, with no wait.
    b.record(Pass::Probe, Verdict::None, at);
    assert_eq!(b.admit(at), Ok(Pass::Probe));
    b.record(Pass::Probe, Verdict::Success, at);
    assert_eq!(b.state(at), State::Closed);
}

#[test]
fn requests_without_a_verdict_never_count() {
    let (mut b, t0) = breaker();
    for _ in 0..20 {
        attempt(&mut b, t0, Verdict::None);
    }
    assert_eq!(b.recent(t0), (0, 0));
    attempt(&mut b, t0, failure("HTTP 500"));
    attempt(&mut b, t0, failure("HTTP 500"));
    for _ in 0..5 {
        attempt(&mut b, t0, Verdict::None);
    }
    assert_eq!(b.failures_in_a_row(), 2);
    assert_eq!(b.state(t0), State::Closed);
}

#[test]
fn a_stale_success_while_open_or_half_open_does_not_close_it() {
    let (mut b, t0) = breaker();
    let early = b.admit(t0).unwrap();
    fail_until_open(&mut b, t0);
    b.record(early, Verdict::Success, t0 + secs(1));
    assert_eq!(b.state(t0 + secs(1)), State::Open);
    assert_eq!(b.admit(t0 + secs(10)), Ok(Pass::Probe));
    b.record(Pass::Normal, Verdict::Success, t0 + secs(10));
    assert_eq!(b.state(t0 + secs(10)), State::HalfOpen);
    assert!(b.admit(t0 + secs(10)).is_err(), "the probe is still out");
}

#[test]
fn a_policy_of_its_own_is_followed() {
    let policy = Policy {
        failures: 1,
        cooldown: secs(2),
        max_cooldown: secs(5),
        ..Policy::default()
    };
    let t0 = Instant::now();
    let mut b = Breaker::new(policy, t0);
    attempt(&mut b, t0, failure("TLS handshake failed"));
    assert_eq!(b.open_until(t0), Some(t0 + secs(2)));
    attempt(&mut b, t0 + secs(2), failure("TLS handshake failed"));
    assert_eq!(b.open_until(t0 + secs(2)), Some(t0 + secs(6)));
    attempt(&mut b, t0 + secs(6), failure("TLS handshake failed"));
    assert_eq!(
        b.open_until(t0 + secs(6)),
        Some(t0 + secs(11)),
        "capped at 5 s"
    );
}
