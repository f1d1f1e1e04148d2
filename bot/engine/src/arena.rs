//! Playing one whole game between [`Player`]s, with no clock (the engine comparisons in the
//! benches use it; tournaments have their own loop with time limits and failure handling).

use crate::player::Player;
use jchomp_rules::{Cell, Config, Game, Rejection, Seat};

/// A player broke the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    /// A player answered nothing although it had to move.
    #[error("seat {seat} did not choose a selection")]
    NoChoice {
        /// The seat.
        seat: Seat,
    },
    /// A player chose a selection the rules refuse.
    #[error("seat {seat} chose {cell}, which is invalid: {reason}")]
    Invalid {
        /// The seat.
        seat: Seat,
        /// Its choice.
        cell: Cell,
        /// Why the rules refused it.
        reason: Rejection,
    },
}

/// Plays one game; `players[s]` sits in seat `s`.
pub fn play_game(config: &Config, players: &mut [Box<dyn Player>]) -> Result<Game, ArenaError> {
    let mut game = Game::new(*config);
    while let Some(seat) = game.to_move() {
        let player = &mut players[seat as usize % players.len()];
        let cell = player
            .choose(config, game.position())
            .ok_or(ArenaError::NoChoice { seat })?;
        game.select(i64::from(cell.row), i64::from(cell.col))
            .map_err(|reason| ArenaError::Invalid { seat, cell, reason })?;
    }
    Ok(game)
}
