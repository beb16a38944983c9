//! Benchmark (not a test): what writing memory the other core also writes costs, beside writing
//! a thread's own, for the request path's batches (`per_thread.rs`). Two threads each do
//! `ITERATIONS` rounds of some work standing for a request's (a few hundred nanoseconds), then
//! append three 400-byte spans to a buffer under a lock, and clone and drop an `Arc` six times:
//! either one buffer, lock and `Arc` both threads share, or each thread's own. Prints the time
//! a round takes in each way, alternating, and the difference per append and per clone.
//! Instruction counts (callgrind) see no difference between the two: only the wall clock does.
//!
//! Usage: `cargo run --release -p tokctl-server --example shared_lines [ROUNDS]` (default 5).

use std::hint::black_box;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;

const ITERATIONS: u64 = 200_000;
const SPAN: [u8; 400] = [7; 400];
const BUFFER: usize = 1 << 20;

/// About 600 ns of arithmetic, the same on every thread: a request's other work.
fn work(seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..3000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    x
}

#[derive(Clone, Copy, PartialEq)]
enum What {
    Nothing,
    Appends,
    Clones,
}

/// Nanoseconds per round with both threads doing `what`, on shared memory or their own.
fn round(what: What, shared: bool) -> f64 {
    let arc = Arc::new(0u64);
    let buffer = Arc::new(Mutex::new(Vec::<u8>::with_capacity(BUFFER)));
    let start = Arc::new(Barrier::new(2));
    let began = Instant::now();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (arc, buffer, start) = match shared {
                true => (arc.clone(), buffer.clone(), start.clone()),
                false => (
                    Arc::new(0u64),
                    Arc::new(Mutex::new(Vec::with_capacity(BUFFER))),
                    start.clone(),
                ),
            };
            std::thread::spawn(move || {
                start.wait();
                let mut sum = 0;
                for i in 0..ITERATIONS {
                    sum ^= work(i);
                    match what {
                        What::Nothing => {}
                        What::Appends => {
                            for _ in 0..3 {
                                let mut batch = buffer.lock().unwrap_or_else(|e| e.into_inner());
                                if batch.len() + SPAN.len() > BUFFER {
                                    batch.clear();
                                }
                                batch.extend_from_slice(&SPAN);
                            }
                        }
                        What::Clones => {
                            for _ in 0..6 {
                                black_box(arc.clone());
                            }
                        }
                    }
                }
                sum
            })
        })
        .collect();
    for thread in threads {
        if let Ok(sum) = thread.join() {
            black_box(sum);
        }
    }
    began.elapsed().as_nanos() as f64 / ITERATIONS as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let ways = [
        ("nothing", What::Nothing, false),
        ("appends, each thread's own", What::Appends, false),
        ("appends, shared", What::Appends, true),
        ("clones, each thread's own", What::Clones, false),
        ("clones, shared", What::Clones, true),
    ];
    let mut times = vec![Vec::new(); ways.len()];
    for _ in 0..rounds {
        for (i, (_, what, shared)) in ways.iter().enumerate() {
            times[i].push(round(*what, *shared));
        }
    }
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    for ((name, _, _), ns) in ways.iter().zip(&medians) {
        println!("{name:28} {ns:8.1} ns a round (median of {rounds})");
    }
    println!(
        "per append: own {:.1} ns, shared {:.1} ns; per clone and drop: own {:.1} ns, shared {:.1} ns",
        (medians[1] - medians[0]) / 3.0,
        (medians[2] - medians[0]) / 3.0,
        (medians[3] - medians[0]) / 6.0,
        (medians[4] - medians[0]) / 6.0,
    );
}
