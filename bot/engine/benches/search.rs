//! Criterion benchmarks of the engine: search speed (nodes per second on one core, against
//! perft on the same position as the baseline measured in the same run) and exact solve times.
//! Run with `cargo bench -p jchomp-engine --bench search`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jchomp_engine::search::{Budget, Engine, Table, solve};
use jchomp_rules::{Config, Position, perft};
use jchomp_testkit::board;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Nodes of one depth-limited search from the start, on a fresh engine.
fn search_nodes(c: &Config, depth: u32) -> u64 {
    let mut engine = Engine::new(16, 1);
    engine
        .search(c, &Position::start(c), Budget::Depth(depth), None)
        .nodes
}

fn search_speed(cr: &mut Criterion) {
    let mut group = cr.benchmark_group("search_speed");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(6));
    for (name, c, depth, perft_depth) in [
        ("8x8_eat1x2", board("8x8 eat 1x2 poison 3,3"), 6, 4),
        ("8x8_eat2x2", board("8x8 eat 2x2 poison 3,3"), 7, 4),
        ("10x10_eat1x1", board("10x10 poison 0,0"), 4, 3),
    ] {
        let nodes = search_nodes(&c, depth);
        eprintln!("{name}: search depth {depth} visits {nodes} nodes");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("alphabeta/{name}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    // The table is allocated before the clock starts.
                    let mut engine = Engine::new(16, 1);
                    engine.search(&c, &Position::start(&c), Budget::Depth(1), None);
                    engine.clear();
                    let start = Instant::now();
                    black_box(engine.search(&c, &Position::start(&c), Budget::Depth(depth), None));
                    total += start.elapsed();
                }
                total
            })
        });
        let start = Position::start(&c);
        let leaves = perft(&c, &start, perft_depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("perft_baseline/{name}"), |b| {
            b.iter(|| perft(&c, black_box(&start), perft_depth))
        });
    }
    group.finish();
}

fn solve_times(cr: &mut Criterion) {
    let mut group = cr.benchmark_group("solve");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, c) in [
        ("6x6_eat1x2_poison0,0", board("6x6 eat 1x2 poison 0,0")),
        ("6x7_eat1x2_poison2,3", board("6x7 eat 1x2 poison 2,3")),
        ("7x7_eat2x2_poison3,3", board("7x7 eat 2x2 poison 3,3")),
        // The boards of the "largest solved" table: wins that need their distance, and ties
        // that the region solver's window settles.
        ("9x9_eat1x2_poison0,0", board("9x9 eat 1x2 poison 0,0")),
        ("9x9_eat2x1_poison0,0", board("9x9 eat 2x1 poison 0,0")),
        ("10x10_eat2x2_poison0,0", board("10x10 eat 2x2 poison 0,0")),
        ("12x12_eat2x3_poison0,0", board("12x12 eat 2x3 poison 0,0")),
        // Races to disable the poison, searched near it first.
        ("9x9_eat2x2_poison4,4", board("9x9 eat 2x2 poison 4,4")),
        (
            "12x12_eat3x2_poison0,0_11,11",
            board("12x12 eat 3x2 poison 0,0 poison 11,11"),
        ),
        (
            "10x10_eat2x3_poison3,4_7,2",
            board("10x10 eat 2x3 poison 3,4 poison 7,2"),
        ),
    ] {
        let mut tt = Table::with_megabytes(64);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    tt.clear();
                    let start = Instant::now();
                    black_box(solve(&c, &Position::start(&c), &mut tt, None).ok());
                    total += start.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search_speed, solve_times);
criterion_main!(benches);
