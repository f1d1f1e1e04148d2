//! perft speed: positions visited per second (make a move + generate the valid selections) on
//! 15×15 boards with eat sizes 1×1, 2×2 and 3×3, for the bitboard engine and, as the baseline in
//! the same run, the brute-force model of the test kit.
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

fn bench(c: &mut Criterion) {
    for e in 1..=3 {
        let config = board(&format!("15x15 eat {e}x{e} poison 0,0"));
        let start = Position::start(&config);

        let mut group = c.benchmark_group(format!("perft 15x15 eat {e}x{e}"));
        group.sample_size(20);
        let depth = 2;
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
