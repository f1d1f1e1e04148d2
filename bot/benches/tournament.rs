//! Tournament speed: `random` against `greedy` in-process on drawn configurations, through the
//! whole tournament machinery (worker pool, seat rotations, standings, SPRT-free), against a
//! baseline measured in the same run: the same games played by a bare loop on the same number
//! of threads, with no bookkeeping at all. A third figure adds writing `games.jsonl` (`--out`).
//!
//! `cargo bench -p jchomp-bot --bench tournament`

// A benchmark panics on purpose if its fixed inputs are refused.
#![allow(clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jchomp_bot::tournament::participant::Participant;
use jchomp_bot::tournament::schedule::{Schedule, Seating, derive_seed};
use jchomp_bot::tournament::starts::Starts;
use jchomp_bot::tournament::{self, Length, Options, Settings};
use jchomp_engine::spec::BotSpec;
use jchomp_rules::Game;
use jchomp_testkit::temp::TempDir;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const GAMES: u64 = 20_000;
const THREADS: usize = 2;

fn settings() -> Settings {
    Settings {
        bots: vec![
            Participant::Bot(BotSpec::Random),
            Participant::Bot(BotSpec::Greedy),
        ],
        gauntlet: false,
        players: 2,
        seating: Seating::Rotations,
        starts: Starts::default(),
        seed: 1,
        length: Length::Games(GAMES),
        sprt: None,
        margin_ms: 100,
        server: None,
        time_control: None,
    }
}

/// The same games as the tournament plays, in a bare loop split over `THREADS` threads.
fn bare_loop(settings: &Settings) -> u64 {
    let schedule = Schedule::new(2, 2, false);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS as u64)
            .map(|t| {
                let schedule = &schedule;
                s.spawn(move || {
                    let mut moves = 0u64;
                    let mut index = t;
                    while index < GAMES {
                        let slot = schedule.slot(index);
                        let config = settings
                            .starts
                            .config(2, settings.seed, slot.round)
                            .expect("valid");
                        let mut players: Vec<_> = slot
                            .seats
                            .iter()
                            .enumerate()
                            .map(|(seat, &b)| {
                                let bot = settings.bots[b].bot().expect("bots only");
                                bot.build(derive_seed(settings.seed, index, seat as u64))
                            })
                            .collect();
                        let mut game = Game::new(config);
                        while let Some(seat) = game.to_move() {
                            let cell = players[usize::from(seat)]
                                .choose(&config, game.position())
                                .expect("a move");
                            game.select(i64::from(cell.row), i64::from(cell.col))
                                .expect("valid");
                        }
                        moves += game.moves().len() as u64;
                        index += THREADS as u64;
                    }
                    moves
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("joins")).sum()
    })
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_vs_greedy");
    group.sample_size(20);
    group.throughput(Throughput::Elements(GAMES));
    let s = settings();
    group.bench_function("bare_loop_2_threads", |b| b.iter(|| bare_loop(&s)));
    group.bench_function("tournament_2_threads", |b| {
        b.iter(|| {
            let options = Options {
                concurrency: THREADS,
                out: None,
                progress: false,
                interrupt: Arc::new(AtomicBool::new(false)),
                classic: None,
                debug: false,
            };
            tournament::run(s.clone(), &options)
                .expect("runs")
                .standings
                .games
        })
    });
    let tmp = TempDir::new("bench-tournament");
    let dir = tmp.path();
    let mut run = 0u32;
    group.bench_function("tournament_2_threads_writing_games", |b| {
        b.iter(|| {
            run += 1;
            let options = Options {
                concurrency: THREADS,
                out: Some(dir.join(run.to_string())),
                progress: false,
                interrupt: Arc::new(AtomicBool::new(false)),
                classic: None,
                debug: false,
            };
            let games = tournament::run(s.clone(), &options)
                .expect("runs")
                .standings
                .games;
            let _ = std::fs::remove_dir_all(dir.join(run.to_string()));
            games
        })
    });
    drop(tmp);
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
