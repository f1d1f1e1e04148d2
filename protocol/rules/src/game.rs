//! [`Game`]: a configuration, its current position and the moves that led there.

use super::config::{Cell, Config, Seat};
use super::position::{GameResult, Position, Rejection, Status};

/// One accepted selection: who made it and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The seat that selected.
    pub seat: Seat,
    /// The anchor (top-left cell) of the eaten rectangle.
    pub cell: Cell,
}

/// A game in progress or finished: the rules plus the history of accepted moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    config: Config,
    position: Position,
    moves: Vec<Move>,
}

impl Game {
    /// A new game at its starting position.
    pub fn new(config: Config) -> Game {
        Game {
            position: Position::start(&config),
            config,
            moves: Vec::new(),
        }
    }

    /// The configuration.
    pub const fn config(&self) -> &Config {
        &self.config
    }

    /// The current position.
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The accepted moves so far, oldest first.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The seat to move, or `None` once the game is over.
    pub const fn to_move(&self) -> Option<Seat> {
        self.position.to_move()
    }

    /// How the game ended, or `None` while it goes on.
    pub const fn result(&self) -> Option<GameResult> {
        self.position.result()
    }

    /// The seat to move selects the rectangle anchored at (row, col). Checks in the rules'
    /// order (out of range, then already eaten); a refusal changes nothing.
    pub fn select(&mut self, row: i64, col: i64) -> Result<Status, Rejection> {
        let seat = self.position.to_move().ok_or(Rejection::GameOver)?;
        let status = self.position.select(&self.config, row, col)?;
        self.moves.push(Move {
            seat,
            cell: Cell::new(row as u8, col as u8),
        });
        Ok(status)
    }

    /// Ends the game with a result decided outside the rules (timeout, abandonment).
    pub fn end(&mut self, result: GameResult) {
        self.position.end(result);
    }
}
