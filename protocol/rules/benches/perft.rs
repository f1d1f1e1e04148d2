//! perft speed: positions visited per second (make a move + generate the valid selections) on
//! 15×15 boards with eat sizes 1×1, 2×2 and 3×3, and for each option (normal play, square bites
//! banned, edge breaks), for the bitboard engine and, as the baseline in the same run, the
//! brute-force model of the test kit.
//!
//! Run: `cargo bench -p jchomp-rules --bench perft`.

use jchomp_testkit::{board, model};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jchomp_rules::{Cell, Config, Position, perft};
use std::hint::black_box;

/// The number of positions made (one per move) by perft to `depth`.
fn visited(config: &Config, position: &Position, depth: u32) -> u64 {
    if depth == 0 || position.to_move().is_none() {
        return 0;
    }
    position
        .selections()
        .iter()
        .map(|i| {
            let mut child = *position;
            child.play(config, Cell::from_index(i));
            1 + visited(config, &child, depth - 1)
        })
        .sum()
}

/// One group: perft to `depth` on the engine, and the model's perft(1) on the same board, each
/// with its positions made as the throughput.
fn group(c: &mut Criterion, name: &str, notation: &str, depth: u32) {
    let config = board(notation);
    let start = Position::start(&config);
    let mut group = c.benchmark_group(name);
    group.sample_size(20);
    group.throughput(Throughput::Elements(visited(&config, &start, depth)));
    group.bench_function("engine", |b| {
        b.iter(|| perft(black_box(&config), black_box(&start), depth))
    });
    let model = model::Model::start(&config);
    // The model's perft(1) makes one position per valid selection.
    group.throughput(Throughput::Elements(model.valid().len() as u64));
    group.bench_function("model", |b| b.iter(|| black_box(&model).perft(1)));
    group.finish();
}

fn bench(c: &mut Criterion) {
    for e in 1..=3 {
        let notation = format!("15x15 eat {e}x{e} poison 0,0");
        group(c, &format!("perft 15x15 eat {e}x{e}"), &notation, 2);
    }
    // The options, one at a time (a JChomp eat size of 1×2: square ones are refused under the
    // ban), and edge breaks, whose game tree is narrow, one ply deeper.
    let options = [
        (
            "perft 15x15 classic normal",
            "15x15 variant classic poison 0,0 play normal",
            2,
        ),
        (
            "perft 15x15 eat 1x2 normal",
            "15x15 eat 1x2 poison 7,7 play normal",
            2,
        ),
        (
            "perft 15x15 classic no squares",
            "15x15 variant classic poison 0,0 no_square_bites",
            2,
        ),
        (
            "perft 15x15 eat 1x2 no squares",
            "15x15 eat 1x2 poison 0,0 no_square_bites",
            2,
        ),
        ("perft 15x15 breaks", "15x15 variant breaks poison 7,7", 3),
        (
            "perft 15x15 breaks no squares",
            "15x15 variant breaks poison 7,7 no_square_bites",
            3,
        ),
    ];
    for (name, notation, depth) in options {
        group(c, name, notation, depth);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
