//! Holds the engine under the rule options (normal play, the ban on square bites, edge breaks,
//! and their combinations) against the test kit's brute-force model: `solve`, `analyze` and
//! `solve_value` from the start and from random positions, every bot spec proposing only valid
//! selections, and `level:5` keeping every won position it is given.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{random_position, same};
use jchomp_engine::search::{Table, analyze, solve, solve_value, standard};
use jchomp_engine::{BotSpec, Rng};
use jchomp_rules::{Config, Position};
use jchomp_testkit::brute::{self, Memo};
use jchomp_testkit::{board, model::Model};

/// Small two-player boards of every option and combination.
const BOARDS: [&str; 14] = [
    "4x4 eat 1x2 poison 0,0 play normal",
    "5x5 eat 2x2 poison 2,2 play normal",
    "4x5 eat 2x1 poison 1,1 poison 3,3 play normal",
    "4x4 eat 1x2 poison 1,1 play normal no_square_bites",
    "3x4 variant classic poison 0,0 no_square_bites",
    "4x4 variant classic poison 1,2 no_square_bites",
    "4x4 variant classic poison 0,0 poison 3,3 no_square_bites",
    "3x4 variant classic poison 2,3 play normal no_square_bites",
    "4x4 variant classic poison 3,3 play normal",
    "4x5 variant breaks poison 1,2",
    "5x5 variant breaks poison 2,1 no_square_bites",
    "4x4 variant breaks poison 3,3 play normal no_square_bites",
    "5x4 variant breaks poison 0,0 play normal",
    "1x4 variant breaks poison 0,1 no_square_bites",
];

/// Checks one position: solve's value, plies and best selection, every selection of analyze,
/// and solve_value's value and best selection, against the brute-force solver.
fn check(model: &Model, config: &Config, position: &Position, tt: &mut Table, memo: &mut Memo) {
    let (outcome, plies) = brute::solve(model, memo);
    let analysed = brute::analyze(model, memo);
    let value_of = |cell| {
        analysed
            .iter()
            .find(|(m, _, _)| brute::cell(*m) == cell)
            .map(|&(_, o, p)| (o, p))
            .expect("a valid selection")
    };
    let s = solve(config, position, tt, None).unwrap();
    assert!(same(s.outcome, outcome), "{model:?}: {s:?} vs {outcome:?}");
    let (best, best_plies) = value_of(s.best);
    assert!(same(s.outcome, best), "{model:?}: best {}", s.best);
    if outcome != brute::Outcome::Tie {
        assert_eq!((s.plies, best_plies), (plies, plies), "{model:?}");
    }
    let (values, _) = analyze(config, position, tt, None, None).unwrap();
    assert_eq!(values.len(), analysed.len(), "{model:?}");
    for v in &values {
        let (o, p) = value_of(v.cell);
        let (vo, vp) = v.value.expect("solved");
        assert!(same(vo, o), "{model:?} {}: {vo:?} vs {o:?}", v.cell);
        if o != brute::Outcome::Tie {
            assert_eq!(vp, Some(p), "{model:?} {}", v.cell);
        }
    }
    let (o, cell, _) = solve_value(config, position, None).unwrap();
    assert!(
        same(o, outcome),
        "solve_value {model:?}: {o:?} vs {outcome:?}"
    );
    assert!(
        same(o, value_of(cell).0),
        "solve_value {model:?}: best {cell}"
    );
}

#[test]
fn every_option_and_combination_is_solved_as_brute_force_solves_it() {
    let mut tt = Table::with_megabytes(4);
    let mut rng = Rng::new(30);
    for notation in BOARDS {
        let config = board(notation);
        assert!(!standard(&config), "{notation} has options");
        let mut memo = Memo::new();
        check(
            &Model::start(&config),
            &config,
            &Position::start(&config),
            &mut tt,
            &mut memo,
        );
        for _ in 0..25 {
            let plies = rng.below(8);
            let (model, position) = random_position(&config, &mut rng, plies);
            if position.to_move().is_some() {
                check(&model, &config, &position, &mut tt, &mut memo);
            }
        }
    }
}

#[test]
fn normal_play_is_won_at_once_where_a_marked_cell_can_be_eaten() {
    let mut tt = Table::with_megabytes(4);
    for notation in [
        "15x15 eat 2x3 poison 7,7 poison 0,0 play normal",
        "15x15 variant classic poison 14,14 poison 3,2 play normal",
        "15x15 variant breaks poison 7,7 play normal",
    ] {
        let config = board(notation);
        let s = solve(&config, &Position::start(&config), &mut tt, None).unwrap();
        assert_eq!((s.outcome.name(), s.plies), ("win", 1), "{notation}");
        assert!(config.poison_zone().contains(s.best.index()), "{notation}");
    }
}

#[test]
fn edge_breaks_are_valued_as_nim_on_the_largest_board() {
    let mut tt = Table::with_megabytes(4);
    // Heaps 3, 11, 9, 5: nim-sum 3^11^9^5 = 14, a win; heaps 7, 7, 7, 7: nim-sum 0, a loss.
    for (notation, win) in [
        ("15x15 variant breaks poison 3,9", true),
        ("15x15 variant breaks poison 7,7", false),
    ] {
        let config = board(notation);
        let start = Position::start(&config);
        let (o, best, nodes) = solve_value(&config, &start, None).unwrap();
        assert_eq!((o.name() == "win", nodes), (win, 0), "{notation}");
        let s = solve(&config, &start, &mut tt, None).unwrap();
        assert_eq!(s.outcome, o, "{notation}");
        if win {
            // Nim's move leaves the opponent lost.
            let mut next = start;
            next.play(&config, best);
            let (reply, _, _) = solve_value(&config, &next, None).unwrap();
            assert_eq!(reply.name(), "loss", "{notation} after {best}");
        }
    }
}

/// Every built-in bot spec, with small budgets where a spec takes one.
const SPECS: [&str; 11] = [
    "random",
    "greedy",
    "level:1",
    "level:2",
    "level:3",
    "level:4",
    "search:nodes=3000",
    "mcts:nodes=2000",
    "brs:nodes=2000",
    "maxn:nodes=2000",
    "search:depth=3",
];

#[test]
fn every_bot_proposes_only_valid_selections_under_the_options() {
    let mut rng = Rng::new(7);
    let mut boards: Vec<String> = BOARDS.iter().map(|b| b.to_string()).collect();
    for extra in [
        "5x5 variant classic poison 0,0 no_square_bites players 3",
        "4x5 eat 1x2 poison 2,2 play normal players 4",
        "5x5 variant breaks poison 2,2 no_square_bites players 3",
        "6x6 variant classic poison 0,0 poison 5,5 play normal no_square_bites players 4",
    ] {
        boards.push(extra.to_string());
    }
    let mut positions = 0;
    for notation in &boards {
        let config = board(notation);
        for (i, text) in SPECS.iter().enumerate() {
            let mut bot = BotSpec::parse(text).unwrap().build(i as u64);
            for _ in 0..6 {
                let plies = rng.below(10);
                let (_, position) = random_position(&config, &mut rng, plies);
                if position.to_move().is_none() {
                    continue;
                }
                let cell = bot.choose(&config, &position).expect("a selection");
                assert!(
                    position.selections().contains(cell.index()),
                    "{text} on {notation} proposed {cell}, not a valid selection"
                );
                positions += 1;
            }
        }
    }
    assert!(positions > 500, "only {positions} positions tried");
}

#[test]
fn level_5_never_loses_a_won_position_under_the_options() {
    let mut rng = Rng::new(5);
    let mut won = 0;
    for notation in BOARDS {
        let config = board(notation);
        let mut bot = BotSpec::parse("level:5").unwrap().build(1);
        let mut memo = Memo::new();
        for _ in 0..8 {
            let plies = rng.below(8);
            let (model, position) = random_position(&config, &mut rng, plies);
            if position.to_move().is_none()
                || brute::solve(&model, &mut memo).0 != brute::Outcome::Win
            {
                continue;
            }
            let cell = bot.choose(&config, &position).unwrap();
            let after = brute::analyze(&model, &mut memo)
                .into_iter()
                .find(|(m, _, _)| brute::cell(*m) == cell)
                .map(|(_, o, _)| o);
            assert_eq!(after, Some(brute::Outcome::Win), "{notation}: {cell}");
            won += 1;
        }
    }
    assert!(won > 30, "only {won} won positions tried");
}

#[test]
fn every_bot_but_random_eats_a_marked_cell_it_can_reach_in_normal_play() {
    for notation in [
        "5x5 variant classic poison 2,2 play normal players 3",
        "6x6 eat 1x2 poison 3,3 play normal players 4",
        "5x4 variant breaks poison 1,3 play normal no_square_bites",
        "6x6 eat 2x1 poison 4,1 poison 0,5 play normal",
    ] {
        let config = board(notation);
        let start = Position::start(&config);
        for (i, text) in SPECS.iter().enumerate().skip(1) {
            let mut bot = BotSpec::parse(text).unwrap().build(i as u64);
            let cell = bot.choose(&config, &start).unwrap();
            assert!(
                config.poison_zone().contains(cell.index()),
                "{text} on {notation} played {cell}, which wins nothing at once"
            );
        }
    }
}
