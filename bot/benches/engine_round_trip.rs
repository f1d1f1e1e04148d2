//! What the engine protocol costs a move: the round trip of `position` + `go` to `bestmove`
//! with `jchomp-bot engine --bot random` as a process, against the same bot choosing in-process,
//! on 6×7 eat 1×2 positions of random games. Prints the median and p99 of each and their ratio.
//!
//! `cargo bench -p jchomp-bot --bench engine_round_trip` (build the binary in release first:
//! the bench runs the `jchomp-bot` that Cargo built beside it).

use jchomp_bot::jep::Go;
use jchomp_bot::jep_runner::{Engine, Io, Launch, Stderr};
use jchomp_engine::{Player, RandomPlayer};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Config, Game};
use std::time::{Duration, Instant};

/// Moves measured each way.
const MOVES: usize = 20_000;

/// The `q` quantile (0–1) of sorted durations, in microseconds.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

/// The positions measured: every position of random games, until there are `MOVES`.
fn positions(game_config: &Config) -> Vec<Vec<Cell>> {
    let mut out = Vec::with_capacity(MOVES);
    let mut mover = RandomPlayer::new(3);
    while out.len() < MOVES {
        let mut game = Game::new(*game_config);
        while game.to_move().is_some() && out.len() < MOVES {
            let moves: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
            out.push(moves);
            let Some(cell) = mover.choose(game.config(), game.position()) else {
                break;
            };
            if game.select(cell.row.into(), cell.col.into()).is_err() {
                break;
            }
        }
    }
    out
}

#[allow(clippy::expect_used)] // a bench: any failure ends it with its reason
fn main() {
    let config: Config = "6x7 eat 1x2 poison 0,0".parse().expect("a board");
    let json = ConfigJson::new(&config, None);
    let positions = positions(&config);

    // In-process: the bot chooses on the replayed position.
    let mut bot = RandomPlayer::new(1);
    let mut local = Vec::with_capacity(MOVES);
    for moves in &positions {
        let started = Instant::now();
        let mut game = Game::new(config);
        for m in moves {
            let _ = game.select(m.row.into(), m.col.into());
        }
        std::hint::black_box(bot.choose(game.config(), game.position()));
        local.push(started.elapsed());
    }

    // Through the protocol.
    let launch = Launch {
        program: env!("CARGO_BIN_EXE_jchomp-bot").to_string(),
        args: vec!["engine".into(), "--bot".into(), "random".into()],
        dir: None,
    };
    let io = Io {
        label: "random".into(),
        stderr: Stderr::Discard,
        debug: false,
    };
    let mut engine = Engine::start(&launch, io).expect("the engine starts");
    engine.new_game().expect("newgame");
    let mut remote = Vec::with_capacity(MOVES);
    for moves in &positions {
        let seat = (moves.len() % 2) as u8;
        let go = Go {
            seat,
            movetime: Some(1000),
            ..Go::default()
        };
        let started = Instant::now();
        engine
            .search(&json, moves, go, Some(Duration::from_secs(5)))
            .expect("a move");
        remote.push(started.elapsed());
    }
    let _ = engine.quit();

    local.sort();
    remote.sort();
    let (l50, l99) = (quantile(&local, 0.5), quantile(&local, 0.99));
    let (r50, r99) = (quantile(&remote, 0.5), quantile(&remote, 0.99));
    println!("{MOVES} moves, 6x7 eat 1x2, random");
    println!("in-process:      median {l50:.1} µs  p99 {l99:.1} µs");
    println!("engine protocol: median {r50:.1} µs  p99 {r99:.1} µs");
    println!(
        "round trip over in-process: median {:.1}×, the protocol's own cost {:.1} µs",
        r50 / l50,
        r50 - l50
    );
}
