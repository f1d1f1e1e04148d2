//! Small classic bars, from the smallest game (1×2) to the standard 3×5: every bot plays them
//! to the end with valid selections, the searching levels win them as the first player (as the
//! test kit's solver of classic Chomp says they can), and the classic database, whose box holds
//! them, values every first selection as the kit's solver does.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_engine::arena::{Untimed, play_game};
use jchomp_engine::classic::{ClassicLibrary, Value, moves_in};
use jchomp_engine::{BotSpec, Player};
use jchomp_rules::{Config, GameResult, Position};
use jchomp_testkit::brute::Outcome;
use jchomp_testkit::classic::{self, Solver};

/// The bars, poison at the top-left, as `(rows, cols)`.
const BARS: [(u8, u8); 8] = [
    (1, 2),
    (2, 1),
    (1, 7),
    (7, 1),
    (2, 2),
    (2, 3),
    (3, 5),
    (5, 3),
];

fn bar((rows, cols): (u8, u8)) -> Config {
    format!("{rows}x{cols} variant classic poison 0,0")
        .parse()
        .unwrap()
}

/// The kit's value of the whole bar for the first player.
fn kit_value((rows, cols): (u8, u8)) -> Outcome {
    let lengths = vec![cols; usize::from(rows)];
    Solver::new().solve(&classic::rows(&lengths)).0
}

fn players(first: &str, second: &str, seed: u64) -> Vec<Box<dyn Player>> {
    [first, second]
        .iter()
        .map(|s| BotSpec::parse(s).unwrap().build(seed))
        .collect()
}

#[test]
fn every_bot_plays_small_bars_to_the_end() {
    for size in BARS {
        let config = bar(size);
        for spec in ["random", "greedy", "level:1", "level:2", "level:3"] {
            for seed in 0..3 {
                for (first, second) in [(spec, "random"), ("greedy", spec)] {
                    let played =
                        play_game(&config, &mut players(first, second, seed), &[], &Untimed)
                            .unwrap();
                    assert_eq!(played.failure, None, "{config} {first} v {second}");
                    assert!(
                        matches!(played.game.result(), Some(GameResult::Poisoned { .. })),
                        "{config}: {:?}",
                        played.game.result()
                    );
                }
            }
        }
    }
}

#[test]
fn searching_levels_win_small_bars_as_the_first_player() {
    for size in BARS {
        // Strategy stealing: every bar of two cells or more is the first player's.
        assert_eq!(kit_value(size), Outcome::Win, "{size:?}");
        let config = bar(size);
        for spec in ["level:3", "level:4"] {
            for (reply, seed) in [("random", 1), ("random", 2), ("greedy", 3), ("level:2", 4)] {
                let played =
                    play_game(&config, &mut players(spec, reply, seed), &[], &Untimed).unwrap();
                assert_eq!(
                    played.game.result(),
                    Some(GameResult::Poisoned { loser: 1 }),
                    "{config}: {spec} v {reply}"
                );
            }
        }
    }
}

#[test]
fn the_database_values_small_bars_as_the_kit_does() {
    let library = ClassicLibrary::with_box(None, 15, 7);
    let db = library.wait().unwrap();
    for size in BARS {
        let config = bar(size);
        let lengths = vec![size.1; usize::from(size.0)];
        let want = Solver::new().moves(&classic::rows(&lengths));
        let got = moves_in(&db, &config, &Position::start(&config)).unwrap();
        assert_eq!(got.len(), want.len(), "{config}");
        for (m, &((r, c), outcome, plies)) in got.iter().zip(&want) {
            assert_eq!((usize::from(m.row), usize::from(m.col)), (r, c), "{config}");
            let value = if outcome == Outcome::Win {
                Value::Win
            } else {
                Value::Loss
            };
            assert_eq!(
                (m.solved.value, u32::from(m.solved.plies)),
                (value, plies),
                "{config} {r},{c}"
            );
        }
        // The strongest level plays from the database: it wins as the first player.
        let spec = BotSpec::parse("level:5").unwrap();
        let mut seats = vec![
            spec.build_with(1, Some(library.clone())),
            BotSpec::parse("random").unwrap().build(1),
        ];
        let played = play_game(&config, &mut seats, &[], &Untimed).unwrap();
        assert_eq!(
            played.game.result(),
            Some(GameResult::Poisoned { loser: 1 }),
            "{config}"
        );
    }
}
