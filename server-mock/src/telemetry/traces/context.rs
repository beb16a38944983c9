//! W3C trace context: a span's ids, a caller's `traceparent` (and `tracestate`) read, the
//! header written for an upstream, new ids, and the parent-based ratio sampler.

use std::cell::RefCell;
use std::sync::Arc;

use axum::http::header::{HeaderName, HeaderValue};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The W3C trace context headers.
pub(super) const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
pub(super) const TRACESTATE: HeaderName = HeaderName::from_static("tracestate");
/// Longest `tracestate` kept (the W3C limit is 32 members of at most 256 bytes each).
const STATE_MAX: usize = 8192;

/// Where a span sits: its trace, its own id, whether its trace is sampled (recorded and
/// exported), and the caller's `tracestate` carried along.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ids {
    pub trace: [u8; 16],
    pub span: [u8; 8],
    pub sampled: bool,
    pub state: Option<Arc<str>>,
}

impl Ids {
    /// A child's: the same trace, a new span id.
    pub fn child(&self) -> Ids {
        Ids {
            span: new_span_id(),
            ..self.clone()
        }
    }

    /// The `traceparent` header naming this span, for an upstream request it stands for.
    pub fn traceparent(&self) -> Option<(HeaderName, HeaderValue)> {
        // `00-{trace id}-{span id}-{flags}`, written without the formatting machinery.
        let mut text = [b'-'; 55];
        text[..2].copy_from_slice(b"00");
        for (ids, at) in [(&self.trace[..], 3), (&self.span[..], 36)] {
            for (i, four) in ids.chunks_exact(4).enumerate() {
                text[at + 8 * i..][..8].copy_from_slice(&hex4(four));
            }
        }
        text[53..55].copy_from_slice(if self.sampled { b"01" } else { b"00" });
        // Owned as it is, counted: the upstream request clones the value, and a value copied
        // into a `Vec`'s bytes would be given a shared count then (a second allocation).
        let value = HeaderValue::from_maybe_shared(bytes::Bytes::from_owner(text)).ok()?;
        Some((TRACEPARENT, value))
    }
}

/// The caller's span, from a valid `traceparent` (and its `tracestate`), the first of each
/// name a request carries.
pub(super) fn extract(parent: Option<&HeaderValue>, state: Option<&HeaderValue>) -> Option<Ids> {
    let parent = parse(parent?.as_bytes())?;
    let state = state
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|state| !state.is_empty() && state.len() <= STATE_MAX && state.is_ascii())
        .map(Arc::from);
    Some(Ids { state, ..parent })
}

/// A `traceparent` value as the W3C specification reads it: version (two lowercase hex digits,
/// not `ff`), trace id (32, not all zero), parent id (16, not all zero) and flags (2); version
/// 00 has nothing after, a later version may have more after a dash.
fn parse(value: &[u8]) -> Option<Ids> {
    let value = value.trim_ascii();
    if value.len() < 55 || [2, 35, 52].iter().any(|&at| value[at] != b'-') {
        return None;
    }
    let [version] = unhex::<1>(&value[..2])?;
    let longer = value.len() > 55;
    if version == 0xff || (version == 0 && longer) || (longer && value[55] != b'-') {
        return None;
    }
    let trace = unhex::<16>(&value[3..35]).filter(|id| id != &[0; 16])?;
    let span = unhex::<8>(&value[36..52]).filter(|id| id != &[0; 8])?;
    let [flags] = unhex::<1>(&value[53..55])?;
    Some(Ids {
        trace,
        span,
        sampled: flags & 1 == 1,
        state: None,
    })
}

/// `N` bytes from `2 * N` lowercase hex digits.
fn unhex<const N: usize>(text: &[u8]) -> Option<[u8; N]> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0; N];
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// Lowercase hex of four bytes (the first four of `four`), worked out on all eight digits at
/// once: each nibble spread into a byte of its own, then `'0'` added to each, and `'a' - '0' -
/// 10` more to those above 9 (a table lookup per digit cost about 195 instructions a
/// `traceparent`).
fn hex4(four: &[u8]) -> [u8; 8] {
    let mut word = [0; 4];
    word.copy_from_slice(&four[..4]);
    let x = u64::from(u32::from_be_bytes(word));
    let x = (x & 0xffff_0000) << 16 | x & 0xffff;
    let x = (x & 0x0000_ff00_0000_ff00) << 8 | x & 0x0000_00ff_0000_00ff;
    let x = (x & 0x00f0_00f0_00f0_00f0) << 4 | x & 0x000f_000f_000f_000f;
    let above_nine = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + above_nine * 0x27).to_be_bytes()
}

thread_local! {
    /// Each thread's generator of ids, seeded from the operating system (as the SDK's is).
    static RANDOM: RefCell<SmallRng> = RefCell::new(SmallRng::from_os_rng());
}

fn new_span_id() -> [u8; 8] {
    RANDOM.with(|random| random.borrow_mut().random::<u64>().max(1).to_be_bytes())
}

/// The ids of a request's server span: a child of the caller's span when there is one (its
/// sampling decision followed), else the root of a new trace kept with probability `ratio`
/// (decided from the trace id, as OpenTelemetry's `TraceIdRatioBased` does, so every service
/// that samples by ratio keeps the same traces).
pub(super) fn server(parent: Option<&Ids>, ratio: f64) -> Ids {
    if let Some(parent) = parent {
        return parent.child();
    }
    let trace = RANDOM
        .with(|random| random.borrow_mut().random::<u128>())
        .max(1)
        .to_be_bytes();
    Ids {
        trace,
        span: new_span_id(),
        sampled: sampled(&trace, ratio),
        state: None,
    }
}

/// Whether a new trace is kept at `ratio`: its id's low 63 bits below `ratio` of their range.
fn sampled(trace: &[u8; 16], ratio: f64) -> bool {
    if ratio >= 1.0 {
        return true;
    }
    let mut low = [0; 8];
    low.copy_from_slice(&trace[8..]);
    let bound = (ratio.max(0.0) * (1u64 << 63) as f64) as u64;
    (u64::from_be_bytes(low) >> 1) < bound
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_traceparent_is_read_as_the_w3c_specification_says() {
        let ids = parse(VALID.as_bytes()).unwrap();
        assert_eq!(ids.trace[..2], [0x4b, 0xf9]);
        assert_eq!(ids.span[7], 0xb7);
        assert!(ids.sampled);
        assert!(
            !parse(
                &VALID.as_bytes()[..54]
                    .iter()
                    .chain(b"0")
                    .copied()
                    .collect::<Vec<_>>()
            )
            .unwrap()
            .sampled
        );
        // A later version may carry more after a dash; version 00 may not.
        assert!(parse(b"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-more").is_some());
        for bad in [
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "",
        ] {
            assert!(parse(bad.as_bytes()).is_none(), "{bad}");
        }
    }

    #[test]
    fn four_bytes_are_written_as_lowercase_hex() {
        for four in [
            [0, 0, 0, 0],
            [0xff; 4],
            [0x0a, 0xf9, 0x10, 0x9e],
            [0x4b, 0xf9, 0x2f, 0x35],
        ] {
            let expected: String = four.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex4(&four), expected.as_bytes(), "{four:?}");
        }
        for n in 0..=255u8 {
            let four = [n, n.wrapping_mul(7), n ^ 0x5a, 255 - n];
            let expected: String = four.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex4(&four), expected.as_bytes(), "{four:?}");
        }
    }

    #[test]
    fn what_is_read_is_written_back_for_the_child() {
        let ids = parse(VALID.as_bytes()).unwrap();
        let (_, value) = ids.traceparent().unwrap();
        assert_eq!(value, VALID);
        let child = ids.child();
        assert_eq!((child.trace, child.sampled), (ids.trace, true));
        assert_ne!(child.span, ids.span);
    }

    #[test]
    fn the_ratio_keeps_its_share_of_new_traces() {
        let kept = (0..10_000).filter(|_| server(None, 0.25).sampled).count();
        assert!((2_200..2_800).contains(&kept), "{kept}");
        assert!((0..100).all(|_| server(None, 1.0).sampled));
        assert!((0..100).all(|_| !server(None, 0.0).sampled));
        // A caller's decision is followed, whatever the ratio.
        let parent = parse(VALID.as_bytes()).unwrap();
        assert!(server(Some(&parent), 0.0).sampled);
    }
}
