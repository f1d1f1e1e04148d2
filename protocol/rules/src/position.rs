//! [`Position`]: the uneaten cells and whose turn it is, with move checking and making.

use super::bits::{Bits, STRIDE};
use super::config::{Bite, Cell, Config, Seat, Variant};
use super::options::Play;
use std::fmt;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `loser` ate a poison cell.
    Poisoned {
        /// The seat that ate poison.
        loser: Seat,
    },
    /// No valid selection was left (JChomp's rule 5; in classic Chomp and with edge breaks
    /// only when square bites are banned, since an uneaten poison cell is itself a selection).
    Tie,
    /// In normal play, `winner` ate a marked (poison) cell; every other seat loses.
    Won {
        /// The seat that ate the marked cell.
        winner: Seat,
    },
    /// `loser` let its move timer run out (decided by the server, not the rules).
    Timeout {
        /// The seat whose time ran out.
        loser: Seat,
    },
    /// `loser` left and did not come back (decided by the server, not the rules).
    Abandoned {
        /// The seat that left.
        loser: Seat,
    },
}

impl GameResult {
    /// The losing seat, if the game has one (a normal-play win has a winner instead).
    pub const fn loser(self) -> Option<Seat> {
        match self {
            GameResult::Poisoned { loser }
            | GameResult::Timeout { loser }
            | GameResult::Abandoned { loser } => Some(loser),
            GameResult::Tie | GameResult::Won { .. } => None,
        }
    }

    /// The winning seat of a normal-play game, if it has one.
    pub const fn winner(self) -> Option<Seat> {
        match self {
            GameResult::Won { winner } => Some(winner),
            _ => None,
        }
    }
}

/// Whether the game goes on, and for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on; this seat selects next.
    ToMove(Seat),
    /// The game is over.
    Over(GameResult),
}

/// Why a selection was refused. A refused selection changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Rejection {
    /// Part of the rectangle (in classic Chomp: the selected cell) lies outside the board.
    #[error("the selection reaches outside the board")]
    OutOfRange,
    /// Part of the rectangle (in classic Chomp and edge breaks: the selected cell) is already
    /// eaten.
    #[error("part of the selection is already eaten")]
    AlreadyEaten,
    /// Edge breaks: the cell lies neither in the poison's row nor in its column, so it names
    /// no break.
    #[error("the cell names no break")]
    NotABreak,
    /// Square bites are banned and this selection would eat a k×k square of cells.
    #[error("the selection would bite a perfect square")]
    SquareBite,
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

impl Rejection {
    /// The reason code used on the wire and in records.
    pub const fn code(self) -> &'static str {
        match self {
            Rejection::OutOfRange => "out_of_range",
            Rejection::AlreadyEaten => "already_eaten",
            Rejection::NotABreak => "not_a_break",
            Rejection::SquareBite => "square_bite",
            Rejection::GameOver => "not_playing",
        }
    }

    /// The refusal of the selection at (`row`, `col`) in a sentence a player understands,
    /// naming the selection and the board: the one wording every tool shows.
    pub fn explain(self, config: &Config, row: i64, col: i64) -> String {
        let (rows, cols) = (config.rows(), config.cols());
        match (self, config.eat()) {
            (Rejection::OutOfRange, Some((er, ec))) => {
                format!(
                    "the {er}×{ec} selection at ({row},{col}) reaches outside the {rows}×{cols} board"
                )
            }
            (Rejection::OutOfRange, None) => {
                format!("the cell ({row},{col}) is outside the {rows}×{cols} board")
            }
            (Rejection::AlreadyEaten, Some((er, ec))) => {
                format!("part of the {er}×{ec} selection at ({row},{col}) is already eaten")
            }
            (Rejection::AlreadyEaten, None) => format!("the cell ({row},{col}) is already eaten"),
            (Rejection::NotABreak, _) => format!(
                "the cell ({row},{col}) names no break: breaks are named by a cell in the row or column of the poison cell"
            ),
            (Rejection::SquareBite, _) => {
                format!(
                    "the selection at ({row},{col}) would bite a perfect square, which is banned"
                )
            }
            (Rejection::GameOver, _) => "the game is over".to_owned(),
        }
    }
}

/// The anchors (top-left cells) of every rectangle of `eat_rows` × `eat_cols` cells that lies
/// wholly inside `uneaten`, computed bit-parallel. `uneaten` must hold no cell in column 15.
#[inline]
pub fn anchors(uneaten: Bits, eat_rows: u8, eat_cols: u8) -> Bits {
    // A run of `eat_cols` uneaten cells starting here; a run crossing a row end meets the
    // always-empty column 15, so it never counts.
    let mut runs = uneaten;
    for j in 1..eat_cols as u32 {
        runs &= uneaten.shr(j);
    }
    let mut out = runs;
    for i in 1..eat_rows as u32 {
        out &= runs.shr(i * STRIDE);
    }
    out
}

/// How a game ends when `seat` eats a poison cell: it loses in misère play, wins in normal play.
fn ate_poison(config: &Config, seat: Seat) -> GameResult {
    match config.play() {
        Play::Misere => GameResult::Poisoned { loser: seat },
        Play::Normal => GameResult::Won { winner: seat },
    }
}

/// A game position: which cells are uneaten, the valid selections, and the status.
/// Small and `Copy`; the [`Config`] it belongs to is passed to each call.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    uneaten: Bits,
    selections: Bits,
    status: Status,
}

impl Position {
    /// The starting position of a game: nothing eaten, seat 0 to move.
    pub fn start(config: &Config) -> Position {
        let uneaten = config.board();
        let selections = config.selections_in(uneaten);
        // A JChomp board is at least 4×4 and every eat size at most 3×3, and a classic or
        // breaks board has its uneaten poison to select, so a start always has moves (with
        // square bites banned a classic or breaks board of two or more cells has a bite of two).
        Position {
            uneaten,
            selections,
            status: Status::ToMove(0),
        }
    }

    /// Builds a position from a set of uneaten cells and the seat to move, as an analysis tool
    /// would. Cells off the board are dropped. The result is `Tie` when no selection is valid,
    /// and `Poisoned` (blaming the seat before `to_move`) when a poison cell is eaten.
    pub fn from_uneaten(config: &Config, uneaten: Bits, to_move: Seat) -> Position {
        let uneaten = uneaten & config.board();
        let to_move = to_move % config.players();
        let selections = config.selections_in(uneaten);
        let status = if config.poison_mask().without(uneaten) != Bits::EMPTY {
            let previous = (to_move + config.players() - 1) % config.players();
            Status::Over(ate_poison(config, previous))
        } else if selections.is_empty() {
            Status::Over(GameResult::Tie)
        } else {
            Status::ToMove(to_move)
        };
        Position {
            uneaten,
            selections: if matches!(status, Status::ToMove(_)) {
                selections
            } else {
                Bits::EMPTY
            },
            status,
        }
    }

    /// The cells not yet eaten.
    #[inline]
    pub const fn uneaten(&self) -> Bits {
        self.uneaten
    }

    /// The cells already eaten.
    pub fn eaten(&self, config: &Config) -> Bits {
        config.board().without(self.uneaten)
    }

    /// Whether the game goes on, and for whom.
    #[inline]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// The seat to move, or `None` once the game is over.
    #[inline]
    pub const fn to_move(&self) -> Option<Seat> {
        match self.status {
            Status::ToMove(s) => Some(s),
            Status::Over(_) => None,
        }
    }

    /// How the game ended, or `None` while it goes on.
    #[inline]
    pub const fn result(&self) -> Option<GameResult> {
        match self.status {
            Status::ToMove(_) => None,
            Status::Over(r) => Some(r),
        }
    }

    /// The anchors of every valid selection (poisoned ones included); empty once the game is over.
    #[inline]
    pub const fn selections(&self) -> Bits {
        self.selections
    }

    /// The valid selections whose rectangle holds no poison.
    #[inline]
    pub fn safe_selections(&self, config: &Config) -> Bits {
        self.selections.without(config.poison_zone())
    }

    /// The selections a cautious player picks from: those without poison, or every valid
    /// selection when each one eats poison.
    pub fn safe_or_any_selections(&self, config: &Config) -> Bits {
        let safe = self.safe_selections(config);
        if safe.is_empty() {
            self.selections
        } else {
            safe
        }
    }

    /// Checks a selection anchored at (row, col) without making it: out of range first, then
    /// already eaten, then (edge breaks) not a break, then (square bites banned) a square
    /// bite. A rectangle holding poison is a valid selection (its eater loses, or wins in
    /// normal play). In classic Chomp and edge breaks the block checked is the selected cell.
    pub fn check(&self, config: &Config, row: i64, col: i64) -> Result<Cell, Rejection> {
        if self.to_move().is_none() {
            return Err(Rejection::GameOver);
        }
        let (er, ec) = config.fit();
        // Compared without adding, so that no i64 a client sends can overflow.
        if row < 0
            || col < 0
            || row > (config.rows() - er) as i64
            || col > (config.cols() - ec) as i64
        {
            return Err(Rejection::OutOfRange);
        }
        let cell = Cell::new(row as u8, col as u8);
        if self.selections.contains(cell.index()) {
            return Ok(cell);
        }
        let (er, ec) = config.fit();
        if !anchors(self.uneaten, er, ec).contains(cell.index()) {
            Err(Rejection::AlreadyEaten)
        } else if config.variant() == Variant::Breaks && config.rect(cell).is_empty() {
            Err(Rejection::NotABreak)
        } else {
            Err(Rejection::SquareBite)
        }
    }

    /// Checks and makes the selection anchored at (row, col). On success returns the new status;
    /// on refusal nothing changes.
    pub fn select(&mut self, config: &Config, row: i64, col: i64) -> Result<Status, Rejection> {
        let cell = self.check(config, row, col)?;
        self.play(config, cell);
        Ok(self.status)
    }

    /// Makes a selection already known to be valid (an anchor from [`Position::selections`]).
    /// The mover loses (wins, in normal play) if the cells it eats hold poison; otherwise the game ties if no valid
    /// selection is left, and passes to the next seat if one is.
    #[inline]
    pub fn play(&mut self, config: &Config, cell: Cell) {
        debug_assert!(
            self.selections.contains(cell.index()),
            "invalid play {cell}"
        );
        let Status::ToMove(mover) = self.status else {
            return;
        };
        let index = cell.index();
        let poisoned = config.poison_zone().contains(index);
        match config.bite() {
            Bite::Cell => {
                // One cell eaten; with a 1×1 eat size every uneaten cell is a selection.
                self.uneaten = self.uneaten.without(Bits::single(index));
                self.selections = self.uneaten;
            }
            Bite::Rect => {
                self.uneaten = self.uneaten.without(config.eaten_by(cell));
                // Eating only ever removes selections: exactly those whose rectangle overlaps
                // the eaten one, anchored up to eat-1 rows above and eat-1 columns left of its
                // cells.
                self.selections = self.selections.without(config.overlapping(cell));
            }
            Bite::Corner if !config.no_square_bites() => {
                // Classic: the cell and everything below and right of it; every uneaten cell
                // is a selection.
                self.uneaten = self.uneaten.without(Bits::below_right(cell.row, cell.col));
                self.selections = self.uneaten;
            }
            Bite::Corner | Bite::Break => {
                self.uneaten = self.uneaten.without(config.rect(cell));
                self.selections = config.selections_in(self.uneaten);
            }
        }
        if poisoned {
            self.selections = Bits::EMPTY;
            self.status = Status::Over(ate_poison(config, mover));
            return;
        }
        self.status = if self.selections.is_empty() {
            Status::Over(GameResult::Tie)
        } else {
            let next = mover + 1;
            Status::ToMove(if next == config.players() { 0 } else { next })
        };
    }

    /// Ends the game with a result the rules do not decide themselves (a timeout or an
    /// abandoned seat). Does nothing if the game is already over.
    pub fn end(&mut self, result: GameResult) {
        if self.to_move().is_some() {
            self.selections = Bits::EMPTY;
            self.status = Status::Over(result);
        }
    }

    /// Renders the board as text: `P` uneaten poison, `#` uneaten, `.` eaten.
    pub fn render(&self, config: &Config) -> String {
        let mut out = String::new();
        for r in 0..config.rows() {
            for c in 0..config.cols() {
                let i = Bits::index(r, c);
                out.push(if !self.uneaten.contains(i) {
                    '.'
                } else if config.poison_mask().contains(i) {
                    'P'
                } else {
                    '#'
                });
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
#[path = "position_tests.rs"]
mod tests;

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("uneaten", &self.uneaten)
            .field("status", &self.status)
            .finish()
    }
}
