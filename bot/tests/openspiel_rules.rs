//! The OpenSpiel games (`clients/engines/openspiel`) against the test kit's brute-force model:
//! along random games of random JChomp and classic configurations, the legal actions, the seat
//! to move, the end and the returns OpenSpiel reports equal the model's at every step; perft
//! counts agree; refused configurations are refused in the rules' words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod openspiel;

use jchomp_engine::Rng;
use jchomp_engine::scoring::seat_score;
use jchomp_rules::{Config, Options, Setup, Variant};
use jchomp_testkit::model::{Model, Outcome};
use jchomp_testkit::side_by_side::result_of;
use openspiel::PyProcess;
use serde_json::{Value, json};
use std::time::Duration;

/// Time for one answer of the trace (a perft to depth 3 on a small board is the longest).
const ANSWER: Duration = Duration::from_secs(120);

/// A random valid setup: JChomp on 4–15 a side, classic on 1–15 a side (at least two cells),
/// 2–4 players, eat sizes 1–3 each way, 1–4 distinct poison cells.
fn random_setup(rng: &mut Rng) -> Setup {
    let variant = if rng.below(2) == 0 {
        Variant::JChomp
    } else {
        Variant::Classic
    };
    let (low, high) = variant.board_size();
    let mut side = || i64::from(low) + rng.below(u64::from(high - low) + 1) as i64;
    let (mut rows, mut cols) = (side(), side());
    if rows * cols < 2 {
        (rows, cols) = (1, 2);
    }
    let players = 2 + rng.below(3) as i64;
    let eat = variant
        .is_jchomp()
        .then(|| [1 + rng.below(3) as i64, 1 + rng.below(3) as i64]);
    let count = 1 + rng.below(4.min(rows * cols) as u64) as usize;
    let mut poison: Vec<[i64; 2]> = Vec::new();
    while poison.len() < count {
        let cell = [rng.below(rows as u64) as i64, rng.below(cols as u64) as i64];
        if !poison.contains(&cell) {
            poison.push(cell);
        }
    }
    Setup {
        rows,
        cols,
        players,
        variant,
        eat,
        poison,
        options: Options::default(),
    }
}

/// The OpenSpiel game parameters of a setup (classic: eat left at its 1x1 default).
fn params(setup: &Setup) -> Value {
    let [er, ec] = setup.eat.unwrap_or([1, 1]);
    let poison: Vec<String> = setup
        .poison
        .iter()
        .map(|[r, c]| format!("{r},{c}"))
        .collect();
    json!({
        "rows": setup.rows, "cols": setup.cols, "players": setup.players,
        "variant": setup.variant.name(), "eat_rows": er, "eat_cols": ec,
        "poison": poison.join(";"),
    })
}

/// What the OpenSpiel game must say of a model position: the seat to move (OpenSpiel's
/// TERMINAL, -4, once over), the legal actions row * cols + col, the end and the returns
/// 2 * score - 1 of the project's scoring (0 each before the end).
fn expected(model: &Model) -> Value {
    let legal: Vec<i64> = model
        .valid()
        .iter()
        .map(|(r, c)| r * model.cols + c)
        .collect();
    let result = model.outcome.map(result_of);
    let returns: Vec<f64> = (0..model.players as u8)
        .map(|seat| result.map_or(0.0, |r| 2.0 * seat_score(r, seat) - 1.0))
        .collect();
    let player = if result.is_some() { -4 } else { model.to_move };
    json!({"player": player, "legal": legal, "terminal": result.is_some(), "returns": returns})
}

/// A random playout on the model, eating poison only one time in fifty while it can avoid it (so
/// that games run long and reach ties): every model position along it and the actions played.
fn playout(setup: &Setup, rng: &mut Rng) -> (Vec<Model>, Vec<i64>) {
    let mut model = Model::start(&Config::new(setup).unwrap());
    let (mut seen, mut actions) = (vec![model.clone()], Vec::new());
    while model.outcome.is_none() {
        let mut valid = model.valid();
        let safe: Vec<_> = valid
            .iter()
            .copied()
            .filter(|&(r, c)| !model.after(r, c).poisoned())
            .collect();
        if !safe.is_empty() && rng.below(50) != 0 {
            valid = safe;
        }
        let (r, c) = valid[rng.below(valid.len() as u64) as usize];
        model = model.after(r, c);
        actions.push(r * model.cols + c);
        seen.push(model.clone());
    }
    (seen, actions)
}

#[test]
fn openspiel_games_match_the_model_along_random_games() {
    let mut trace = PyProcess::python(&["-m", "jchomp_openspiel.trace"]);
    let mut rng = Rng::new(27);
    let (mut steps, mut ties, mut variants) = (0, 0, [0; 2]);
    for game in 0..300 {
        let setup = random_setup(&mut rng);
        let (models, actions) = playout(&setup, &mut rng);
        trace.send(&json!({"params": params(&setup), "moves": actions}).to_string());
        let answer: Value = serde_json::from_str(&trace.read(ANSWER)).unwrap();
        let got = answer["steps"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        assert_eq!(got.len(), models.len(), "game {game}: {setup:?}");
        for (ply, (got, model)) in got.iter().zip(&models).enumerate() {
            assert_eq!(got, &expected(model), "game {game} ply {ply}: {setup:?}");
        }
        steps += got.len();
        ties += usize::from(matches!(models.last().unwrap().outcome, Some(Outcome::Tie)));
        variants[usize::from(setup.variant.is_jchomp())] += 1;
    }
    // The games reached both variants, both endings and many positions.
    assert!(variants.iter().all(|&n| n > 80), "{variants:?}");
    assert!(ties > 10, "{ties} ties");
    assert!(steps > 4_000, "{steps} steps");
}

#[test]
fn openspiel_perft_matches_the_model() {
    let mut trace = PyProcess::python(&["-m", "jchomp_openspiel.trace"]);
    let cases = [
        ("4x4 eat 1x1 poison 0,0", 3),
        ("5x6 players 3 eat 2x1 poison 1,2 poison 4,5", 3),
        ("4x5 players 4 eat 2x2 poison 3,4", 4),
        ("3x5 variant classic poison 0,0", 4),
        ("1x15 variant classic players 3 poison 0,7 poison 0,0", 4),
        ("6x2 variant classic players 4 poison 5,1", 5),
    ];
    for (notation, depth) in cases {
        let setup: Setup = notation.parse().unwrap();
        let model = Model::start(&Config::new(&setup).unwrap());
        trace.send(&json!({"params": params(&setup), "perft": depth}).to_string());
        let answer: Value = serde_json::from_str(&trace.read(ANSWER)).unwrap();
        assert_eq!(
            answer["perft"].as_u64(),
            Some(model.perft(depth)),
            "{notation} to depth {depth}"
        );
    }
}

#[test]
fn openspiel_refuses_what_the_rules_refuse_in_their_words() {
    let mut trace = PyProcess::python(&["-m", "jchomp_openspiel.trace"]);
    let valid: Setup = "6x7 eat 1x2 poison 0,0".parse().unwrap();
    let classic: Setup = "3x5 variant classic poison 0,0".parse().unwrap();
    let refused = [
        Setup {
            rows: 3,
            ..valid.clone()
        },
        Setup {
            cols: 16,
            ..valid.clone()
        },
        Setup {
            players: 5,
            ..valid.clone()
        },
        Setup {
            eat: Some([0, 1]),
            ..valid.clone()
        },
        Setup {
            eat: Some([1, 4]),
            ..valid.clone()
        },
        Setup {
            poison: vec![[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]],
            ..valid.clone()
        },
        Setup {
            poison: vec![[0, 0], [6, 0]],
            ..valid.clone()
        },
        Setup {
            poison: vec![[2, 3], [2, 3]],
            ..valid.clone()
        },
        Setup {
            rows: 1,
            cols: 1,
            ..classic.clone()
        },
        Setup {
            rows: 16,
            ..classic.clone()
        },
        Setup {
            poison: vec![[0, 0], [0, 1], [0, 0]],
            rows: 1,
            cols: 2,
            ..classic
        },
    ];
    for setup in refused {
        let why = Config::new(&setup).unwrap_err().to_string();
        trace.send(&json!({"params": params(&setup), "perft": 1}).to_string());
        let answer: Value = serde_json::from_str(&trace.read(ANSWER)).unwrap();
        assert_eq!(answer, json!({"error": why}), "{setup:?}");
    }
}
