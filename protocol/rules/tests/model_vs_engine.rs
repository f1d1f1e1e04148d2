//! The fast bitboard engine against the brute-force model, JChomp, classic Chomp and edge breaks,
//! in misère and normal play, with and without square bites: random games with random (often
//! invalid) selections must get the same answer at every step, and perft must agree.

use jchomp_testkit::{board, model};

use jchomp_rules::{Bits, Cell, Config, Game, GameResult, Options, Play, Setup, Variant, perft};
use model::{Model, Outcome};
use proptest::prelude::*;

/// A random valid configuration: the variant (classic one time in three), sizes (4–15 in
/// JChomp; 1–15 in classic, small bars such as 1×2 and 3×5 included, never the lone 1×1),
/// players, the eat size (JChomp) and 1–4 distinct poison cells.
fn any_setup() -> impl Strategy<Value = Setup> {
    (0..3)
        .prop_flat_map(|kind| {
            let least = if kind == 0 { 1i64 } else { 4 };
            (
                least..=15,
                least..=15,
                2i64..=4,
                1i64..=3,
                1i64..=3,
                Just(kind),
            )
        })
        .prop_filter("a classic bar of one cell", |(rows, cols, ..)| {
            rows * cols >= 2
        })
        .prop_flat_map(|(rows, cols, players, e1, e2, kind)| {
            let variant = if kind == 0 {
                Variant::Classic
            } else {
                Variant::JChomp
            };
            let most = 4.min(rows * cols) as usize;
            proptest::collection::btree_set((0..rows, 0..cols), 1..=most).prop_map(move |poison| {
                Setup {
                    rows,
                    cols,
                    players,
                    variant,
                    eat: variant.is_jchomp().then_some([e1, e2]),
                    poison: poison.into_iter().map(|(r, c)| [r, c]).collect(),
                    options: Options::default(),
                }
            })
        })
}

/// A random valid classic Chomp configuration.
fn classic_setup() -> impl Strategy<Value = Setup> {
    any_setup().prop_map(|s| Setup {
        variant: Variant::Classic,
        eat: None,
        ..s
    })
}

/// A random valid configuration with options: [`any_setup`] made an edge-breaks board (its first
/// poison cell kept) one time in three, in normal play half the time, and with square bites
/// banned half the time (unless its eat size is square).
fn options_setup() -> impl Strategy<Value = Setup> {
    (any_setup(), 0..3, any::<bool>(), any::<bool>()).prop_map(|(s, kind, normal, squares)| {
        let s = if kind == 0 {
            Setup {
                variant: Variant::Breaks,
                eat: None,
                poison: s.poison[..1].to_vec(),
                ..s
            }
        } else {
            s
        };
        let square_eat = matches!(s.eat, Some([er, ec]) if er == ec);
        Setup {
            options: Options {
                play: if normal { Play::Normal } else { Play::Misere },
                no_square_bites: squares && !square_eat,
            },
            ..s
        }
    })
}

/// Plays `picks` (a valid selection by index, or the coordinates) on the engine and the model
/// side by side; every answer and every state must agree.
fn plays_alike(setup: &Setup, picks: &[(bool, u16, i64, i64)]) -> Result<(), TestCaseError> {
    let config = Config::new(setup).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut game = Game::new(config);
    let mut model = Model::start(&config);
    same_state(&game, &model)?;
    for &(pick_valid, k, r, c) in picks {
        let valid = model.valid();
        let (r, c) = if pick_valid && !valid.is_empty() {
            valid[k as usize % valid.len()]
        } else {
            (r, c)
        };
        let engine = game.select(r, c).map(|_| ()).map_err(|e| e.code());
        let expected = model.select(r, c);
        prop_assert_eq!(engine, expected, "selection ({}, {})", r, c);
        same_state(&game, &model)?;
    }
    Ok(())
}

fn engine_valid(game: &Game) -> Vec<(i64, i64)> {
    game.position()
        .selections()
        .iter()
        .map(Cell::from_index)
        .map(|c| (c.row as i64, c.col as i64))
        .collect()
}

fn engine_eaten(game: &Game) -> Vec<(i64, i64)> {
    game.position()
        .eaten(game.config())
        .iter()
        .map(Cell::from_index)
        .map(|c| (c.row as i64, c.col as i64))
        .collect()
}

fn same_state(game: &Game, model: &Model) -> Result<(), TestCaseError> {
    prop_assert_eq!(engine_valid(game), model.valid());
    prop_assert_eq!(
        engine_eaten(game),
        model.eaten.iter().copied().collect::<Vec<_>>()
    );
    let outcome = match game.result() {
        None => None,
        Some(GameResult::Poisoned { loser }) => Some(Outcome::Poisoned(loser as i64)),
        Some(GameResult::Tie) => Some(Outcome::Tie),
        Some(GameResult::Won { winner }) => Some(Outcome::Won(winner as i64)),
        Some(other) => return Err(TestCaseError::fail(format!("unexpected {other:?}"))),
    };
    prop_assert_eq!(outcome, model.outcome);
    if model.outcome.is_none() {
        prop_assert_eq!(game.to_move().map(i64::from), Some(model.to_move));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Random games: each step picks either a valid selection or any coordinates near the board.
    #[test]
    fn engine_matches_model_move_by_move(
        setup in any_setup(),
        picks in proptest::collection::vec((any::<bool>(), any::<u16>(), -3i64..18, -3i64..18), 1..160),
    ) {
        plays_alike(&setup, &picks)?;
    }

    /// The same with the options: edge breaks, normal play, square bites banned.
    #[test]
    fn engine_matches_model_with_options(
        setup in options_setup(),
        picks in proptest::collection::vec((any::<bool>(), any::<u16>(), -3i64..18, -3i64..18), 1..160),
    ) {
        plays_alike(&setup, &picks)?;
    }

    /// Classic games on their own: every step agrees with the model, and no game ends in a tie.
    #[test]
    fn classic_matches_model_and_never_ties(
        setup in classic_setup(),
        picks in proptest::collection::vec((any::<bool>(), any::<u16>(), -3i64..18, -3i64..18), 1..120),
    ) {
        let config = Config::new(&setup).expect("generated setups are valid");
        let mut game = Game::new(config);
        let mut model = Model::start(&config);
        for (pick_valid, k, r, c) in picks {
            let valid = model.valid();
            let (r, c) = if pick_valid && !valid.is_empty() { valid[k as usize % valid.len()] } else { (r, c) };
            let engine = game.select(r, c).map(|_| ()).map_err(|e| e.code());
            prop_assert_eq!(engine, model.select(r, c), "selection ({}, {})", r, c);
            same_state(&game, &model)?;
            prop_assert_ne!(game.result(), Some(GameResult::Tie));
        }
    }

    /// Safe selections are exactly the valid ones whose rectangle holds no poison.
    #[test]
    fn safe_selections_avoid_exactly_the_poison(setup in any_setup(), moves in proptest::collection::vec(any::<u16>(), 0..20)) {
        let config = Config::new(&setup).expect("valid");
        let mut game = Game::new(config);
        for k in moves {
            let safe = game.position().safe_selections(&config);
            for index in game.position().selections().iter() {
                let rect = config.rect(Cell::from_index(index));
                prop_assert_eq!(safe.contains(index), !rect.intersects(config.poison_mask()));
            }
            let all: Vec<u32> = game.position().selections().iter().collect();
            if all.is_empty() { break; }
            let cell = Cell::from_index(all[k as usize % all.len()]);
            game.select(cell.row as i64, cell.col as i64).expect("valid by construction");
        }
    }
}

/// perft from the engine equals perft from the model on a spread of configurations.
#[test]
fn perft_agrees_with_the_model() {
    // The board and the deepest depth checked.
    let cases = [
        ("4x4 poison 0,0", 4),
        ("5x6 eat 1x2 poison 0,0 poison 4,5", 4),
        ("5x5 eat 2x2 poison 2,2 players 3", 4),
        ("6x4 eat 3x1 poison 0,3 poison 5,0 poison 2,1 players 4", 4),
        ("4x7 eat 2x3 poison 1,1 poison 3,6 poison 0,0 poison 2,4", 5),
        ("15x15 eat 3x3 poison 7,7", 2),
        ("7x9 eat 1x3 poison 0,0", 3),
        ("4x4 variant classic poison 0,0", 4),
        ("4x5 variant classic poison 3,4 poison 0,2 players 3", 4),
        (
            "5x4 variant classic poison 2,1 poison 4,0 poison 0,3 poison 1,1 players 4",
            4,
        ),
        ("6x6 variant classic poison 5,5", 3),
        ("15x15 variant classic poison 7,7", 2),
        // Small classic bars, from the smallest game up to the standard 3×5.
        ("1x2 variant classic poison 0,0", 3),
        ("2x1 variant classic poison 1,0 poison 0,0 players 3", 3),
        ("1x2 variant classic poison 0,1", 2),
        ("2x2 variant classic poison 1,1 poison 0,0", 4),
        ("1x15 variant classic poison 0,0", 4),
        ("15x1 variant classic poison 7,0 players 3", 4),
        ("3x5 variant classic poison 0,0", 5),
        ("3x5 variant classic poison 2,4 poison 0,2 players 4", 4),
        ("4x5 variant classic poison 0,0", 4),
    ];
    for (notation, depth) in cases {
        let config = board(notation);
        let start = jchomp_rules::Position::start(&config);
        for d in 0..=depth {
            assert_eq!(
                perft(&config, &start, d),
                Model::start(&config).perft(d),
                "{notation} depth {d}"
            );
        }
    }
}

/// Fixed perft figures (computed by the model) pin the rules down against both implementations
/// drifting together.
#[test]
fn perft_known_values() {
    let config = board("4x4 poison 0,0");
    let start = jchomp_rules::Position::start(&config);
    // 16 first selections; after any of them 15 cells remain, except the poisoned (0,0) ends it.
    assert_eq!(perft(&config, &start, 1), 16);
    assert_eq!(perft(&config, &start, 2), 1 + 15 * 15);
    let divide = jchomp_rules::divide(&config, &start, 2);
    assert_eq!(divide.len(), 16);
    assert_eq!(divide[0], (Cell::new(0, 0), 1));
    assert!(divide[1..].iter().all(|&(_, n)| n == 15));
    assert_eq!(start.selections(), Bits::rect(0, 0, 4, 4));
}

/// Classic perft figures by hand: on a 4×4 board with poison at the corner every first
/// selection but the poison leaves the poison and at least one other cell.
#[test]
fn classic_perft_known_values() {
    let config = board("4x4 variant classic poison 0,0");
    let start = jchomp_rules::Position::start(&config);
    assert_eq!(perft(&config, &start, 1), 16);
    // After selecting (r, c) the cells left are those with row < r or col < c.
    let second: u64 = (0..4u64)
        .flat_map(|r| (0..4u64).map(move |c| (r, c)))
        .map(|(r, c)| {
            if (r, c) == (0, 0) {
                1
            } else {
                16 - (4 - r) * (4 - c)
            }
        })
        .sum();
    assert_eq!(perft(&config, &start, 2), second);
    assert_eq!(start.selections(), Bits::rect(0, 0, 4, 4));
}
