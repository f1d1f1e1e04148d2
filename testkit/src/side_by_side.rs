//! A list of moves played through the rules and the brute-force model side by side, for the
//! tests of example games: every move accepted by both, the same cells eaten, the same result.

use crate::board;
use crate::model::{Model, Outcome};
use jchomp_rules::{Cell, Game, GameResult};

/// The engine's result for a model outcome.
pub fn result_of(outcome: Outcome) -> GameResult {
    match outcome {
        Outcome::Poisoned(seat) => GameResult::Poisoned { loser: seat as u8 },
        Outcome::Won(seat) => GameResult::Won { winner: seat as u8 },
        Outcome::Tie => GameResult::Tie,
    }
}

/// Plays `moves` on `notation` through the rules and the model side by side; returns the
/// number of cells each move ate and the result.
pub fn play(notation: &str, moves: &[(u8, u8)]) -> (Vec<usize>, Option<GameResult>) {
    let config = board(notation);
    let mut game = Game::new(config);
    let mut model = Model::start(&config);
    let mut counts = Vec::new();
    for &(row, col) in moves {
        let before = game.position().uneaten().count();
        let Some(seat) = game.to_move() else {
            panic!("{notation}: ({row},{col}) after the end of the game");
        };
        assert_eq!(
            i64::from(seat),
            model.to_move,
            "{notation}: seat before ({row},{col})"
        );
        game.select(row.into(), col.into())
            .unwrap_or_else(|e| panic!("{notation}: ({row},{col}) refused: {e}"));
        model
            .select(row.into(), col.into())
            .unwrap_or_else(|e| panic!("{notation}: the model refuses ({row},{col}): {e}"));
        let eaten: Vec<(i64, i64)> = game
            .position()
            .eaten(&config)
            .iter()
            .map(Cell::from_index)
            .map(|c| (c.row.into(), c.col.into()))
            .collect();
        assert_eq!(eaten, model.eaten.iter().copied().collect::<Vec<_>>());
        counts.push((before - game.position().uneaten().count()) as usize);
    }
    let result = game.result();
    assert_eq!(result, model.outcome.map(result_of), "{notation}");
    (counts, result)
}
