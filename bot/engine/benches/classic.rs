//! The classic database's build against a straightforward dynamic programme over the same
//! positions (every position, every child ranked and looked up), in the same run, and the cost
//! of one lookup. Prints medians of a few runs per box.
//!
//! Run: `cargo bench -p jchomp-engine --bench classic` (boxes 10×10 to 13×13 for the ratio, then
//! the whole 15×15 build alone; `CLASSIC_FULL=0` skips the 15×15 build).

// A benchmark of fixed, known-valid inputs: a failure here is a bug to see at once.
#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]

use jchomp_engine::classic::{ClassicDb, Ranker, Shape, build};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Plies of every position by the plain recurrence: for each rank in order, rank every child.
fn straightforward(ranker: &Ranker) -> Vec<u8> {
    let count = ranker.count() as usize;
    let mut plies = vec![0u8; count];
    for x in 1..count {
        let shape = ranker.unrank(x as u64);
        let mut best_win = u8::MAX;
        let mut longest_loss = 1u8;
        for r in 0..shape.height() {
            for c in 0..shape.row(r) as usize {
                if r == 0 && c == 0 {
                    continue;
                }
                let child = shape.select(r, c).unwrap();
                let p = plies[ranker.rank(&child) as usize];
                if p % 2 == 1 {
                    best_win = best_win.min(p + 1);
                } else {
                    longest_loss = longest_loss.max(p + 1);
                }
            }
        }
        plies[x] = if best_win != u8::MAX {
            best_win
        } else {
            longest_loss
        };
    }
    plies
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(black_box(f()));
        times.push(t.elapsed());
    }
    (median(times), last.unwrap())
}

fn main() {
    // `cargo bench` passes `--bench`; this binary has no options of its own.
    println!("box     positions    build (median)  straightforward  ratio");
    for n in [10usize, 11, 12, 13] {
        let ranker = Ranker::new(n, n).unwrap();
        let (ours, a) = time(5, || build(&ranker, &mut |_| {}));
        let (plain, b) = time(3, || straightforward(&ranker));
        assert_eq!(a, b, "the two programmes disagree inside {n}x{n}");
        println!(
            "{n:>2}x{n:<2} {:>12}  {:>12.1?}  {:>14.1?}  {:>6.1}x",
            ranker.count() - 1,
            ours,
            plain,
            plain.as_secs_f64() / ours.as_secs_f64()
        );
    }
    if std::env::var("CLASSIC_FULL").as_deref() != Ok("0") {
        let ranker = Ranker::new(15, 15).unwrap();
        let (full, db) = time(3, || ClassicDb::build(ranker.clone(), &mut |_| {}));
        println!(
            "15x15 {:>12}  {:>12.2?}  positions {} p-positions {}",
            db.positions(),
            full,
            db.positions(),
            db.p_positions()
        );
        let shapes: Vec<Shape> = (0..1000u64)
            .map(|i| ranker.unrank(1 + (i * 155_111) % (ranker.count() - 1)))
            .collect();
        let (lookups, _) = time(5, || {
            let mut wins = 0usize;
            for _ in 0..1000 {
                for s in &shapes {
                    wins += usize::from(db.lookup(s).unwrap().plies % 2 == 0);
                }
            }
            wins
        });
        println!(
            "lookup  {:.0?} each (median of 5 × 1,000,000)",
            lookups / 1_000_000
        );
    }
}
