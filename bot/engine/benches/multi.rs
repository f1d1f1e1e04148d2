//! Paranoid against max^n for three and four players: head-to-head (one seat of one kind
//! against the others of the other kind) and each against random opponents, seats rotated,
//! equal node budgets. Prints a table; run with `cargo bench -p jchomp-engine --bench multi`.

use jchomp_engine::arena::{Played, Untimed, play_game};
use jchomp_engine::scoring::seat_score;
use jchomp_engine::search::{Budget, MultiMode, SearchPlayer};
use jchomp_engine::{Player, RandomPlayer};
use jchomp_rules::{Config, GameResult};
use jchomp_testkit::board;

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Search(MultiMode),
    Random,
}

fn build(kind: Kind, budget: Budget, seed: u64) -> Box<dyn Player> {
    match kind {
        Kind::Search(mode) => Box::new(SearchPlayer::new(budget, seed).with_mode(mode)),
        Kind::Random => Box::new(RandomPlayer::new(seed)),
    }
}

/// Average score of the single `hero` seat over `games` games with `villain` in every other
/// seat, the hero's seat rotating.
fn series(config: &Config, hero: Kind, villain: Kind, budget: Budget, games: u32) -> f64 {
    let n = config.players() as u32;
    let mut total = 0.0;
    for g in 0..games {
        let hero_seat = (g % n) as u8;
        let mut players: Vec<Box<dyn Player>> = (0..n as u8)
            .map(|s| {
                let kind = if s == hero_seat { hero } else { villain };
                build(kind, budget, u64::from(g) * 16 + u64::from(s))
            })
            .collect();
        let result = match play_game(config, &mut players, &[], &Untimed) {
            Some(Played {
                game,
                failure: None,
                ..
            }) => game.result().unwrap_or(GameResult::Tie),
            Some(Played {
                failure: Some((seat, failure)),
                ..
            }) => {
                eprintln!("seat {seat} failed: {}", failure.name());
                return f64::NAN;
            }
            None => return f64::NAN,
        };
        total += seat_score(result, hero_seat);
    }
    total / f64::from(games)
}

fn main() {
    let games: u32 = std::env::var("MULTI_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let budget = Budget::Nodes(20_000);
    let boards = [
        ("6x7 eat 1x2 poison 2,3", 3),
        ("6x6 eat 2x2 poison 2,2", 3),
        ("7x7 eat 2x1 poison 3,3", 4),
        ("6x6 eat 1x2 poison 0,0 poison 5,5", 4),
    ];
    let paranoid = Kind::Search(MultiMode::Paranoid);
    let maxn = Kind::Search(MultiMode::MaxN);
    println!(
        "budget {budget}, {games} games per cell, hero seat rotated; fair share = 1 - 1/players"
    );
    println!(
        "| board | players | paranoid vs max^n | max^n vs paranoid | paranoid vs random | max^n vs random |"
    );
    println!("|---|---|---|---|---|---|");
    for (notation, players) in boards {
        let config = board(&format!("{notation} players {players}"));
        let cells = [
            series(&config, paranoid, maxn, budget, games),
            series(&config, maxn, paranoid, budget, games),
            series(&config, paranoid, Kind::Random, budget, games),
            series(&config, maxn, Kind::Random, budget, games),
        ];
        println!(
            "| {notation} | {players} | {:.3} | {:.3} | {:.3} | {:.3} |",
            cells[0], cells[1], cells[2], cells[3]
        );
    }
}
