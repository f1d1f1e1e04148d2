//! Game configuration: the unvalidated [`Setup`], the validated [`Config`] and [`ConfigError`].

use super::bits::Bits;
use super::options::{Options, Play};
use super::position::anchors;
use std::fmt;

/// Smallest and largest number of rows or columns on a JChomp board.
pub const BOARD_SIZE: (u8, u8) = (4, 15);
/// Smallest and largest number of rows or columns on a classic Chomp board (the standard game
/// is a 3×5 bar). The board must also hold at least [`CLASSIC_MIN_CELLS`] cells.
pub const CLASSIC_BOARD_SIZE: (u8, u8) = (1, 15);
/// The fewest cells of a classic Chomp board: a 1×1 bar is the poison alone, which the first
/// player must eat with no choice, so the smallest game is 1×2 or 2×1.
pub const CLASSIC_MIN_CELLS: u8 = 2;
/// Smallest and largest number of players.
pub const PLAYERS: (u8, u8) = (2, 4);
/// Smallest and largest eat size along either axis.
pub const EAT_SIZE: (u8, u8) = (1, 3);
/// Largest number of poison cells (also capped by the board's cell count).
pub const MAX_POISON: usize = 4;

/// A seat at the table: 0 moves first, then 1, and so on cyclically.
pub type Seat = u8;

/// A cell of the board: row 0 is the top row, col 0 the left column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Row, counted downwards from 0.
    pub row: u8,
    /// Column, counted rightwards from 0.
    pub col: u8,
}

impl Cell {
    /// The cell at (row, col).
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }

    /// This cell's bit index in a [`Bits`].
    #[inline]
    pub const fn index(self) -> u32 {
        Bits::index(self.row, self.col)
    }

    /// The cell with this bit index.
    #[inline]
    pub const fn from_index(index: u32) -> Cell {
        Cell {
            row: (index / super::bits::STRIDE) as u8,
            col: (index % super::bits::STRIDE) as u8,
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.row, self.col)
    }
}

/// Which game a configuration plays: what one selection eats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// JChomp: a selection eats an `eat` rectangle of 1–3 rows by 1–3 columns anchored at its
    /// top-left cell, and is valid only when the whole rectangle is on the board and uneaten.
    #[default]
    JChomp,
    /// Classic Chomp: a selection eats its cell and every uneaten cell below and to the right
    /// of it (rows ≥ r and columns ≥ c); any uneaten cell may be selected. There is no eat size.
    Classic,
    /// Edge breaks: the bar is broken along one grid line and the piece on the far side from
    /// the one poison cell is eaten, so the bar stays a rectangle (Nim on the four distances
    /// from the poison to the edges). A selection names an uneaten cell in the poison's row or
    /// column: (r, pc) with r below the poison eats every row from r down, above it every row
    /// from r up; (pr, c) likewise eats columns from c rightwards or leftwards; the poison cell
    /// itself eats the whole bar. There is no eat size and exactly one poison cell.
    Breaks,
}

impl Variant {
    /// Every variant, the default first.
    pub const ALL: [Variant; 3] = [Variant::JChomp, Variant::Classic, Variant::Breaks];

    /// The variant's name in the JSON configuration, the notation and the flags.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::JChomp => "jchomp",
            Variant::Classic => "classic",
            Variant::Breaks => "breaks",
        }
    }

    /// The variant with this name (case does not matter).
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(name))
    }

    /// Smallest and largest number of rows or columns of this variant's boards:
    /// [`BOARD_SIZE`] for JChomp, [`CLASSIC_BOARD_SIZE`] for classic Chomp and edge breaks.
    pub const fn board_size(self) -> (u8, u8) {
        match self {
            Variant::JChomp => BOARD_SIZE,
            Variant::Classic | Variant::Breaks => CLASSIC_BOARD_SIZE,
        }
    }

    /// Whether this is the default variant, JChomp (which configurations do not name).
    pub const fn is_jchomp(&self) -> bool {
        matches!(self, Variant::JChomp)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unvalidated game setup, as a user or a file gives it. Becomes a [`Config`] through
/// [`Config::new`]. Fields are wide signed integers so that any number a client sends can be
/// represented and refused with a precise message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Board rows: 4–15 in JChomp, 1–15 in classic Chomp (with at least 2 cells).
    pub rows: i64,
    /// Board columns: 4–15 in JChomp, 1–15 in classic Chomp (with at least 2 cells).
    pub cols: i64,
    /// Players (2–4).
    pub players: i64,
    /// The game played: JChomp or classic Chomp.
    pub variant: Variant,
    /// Eat size: rows × columns eaten by one selection (each 1–3). JChomp needs one; classic
    /// Chomp must have none.
    pub eat: Option<[i64; 2]>,
    /// Poison cells as (row, col): 1 to min(4, rows·cols) distinct cells inside the board
    /// (exactly one with edge breaks).
    pub poison: Vec<[i64; 2]>,
    /// Misère or normal play, and the ban on square bites; the default is the game without them.
    pub options: Options,
}

/// Which setting of a [`Setup`] a [`ConfigError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The number of rows.
    Rows,
    /// The number of columns.
    Cols,
    /// The number of players.
    Players,
    /// The eat size as a whole (given or not).
    Eat,
    /// The eat size along rows (`eat[0]`).
    EatRows,
    /// The eat size along columns (`eat[1]`).
    EatCols,
    /// The list of poison cells.
    Poison,
    /// The ban on perfect-square bites.
    NoSquareBites,
}

impl Field {
    /// The field's name as it appears in the JSON configuration.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Rows => "rows",
            Field::Cols => "cols",
            Field::Players => "players",
            Field::Eat => "eat",
            Field::EatRows => "eat[0]",
            Field::EatCols => "eat[1]",
            Field::Poison => "poison",
            Field::NoSquareBites => "no_square_bites",
        }
    }
}

/// Why a [`Setup`] is not a valid game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A number lies outside its allowed range.
    #[error("{} must be {min}–{max}, got {got}", field.name())]
    OutOfRange {
        /// The setting.
        field: Field,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
        /// The value given.
        got: i64,
    },
    /// A classic board of fewer than [`CLASSIC_MIN_CELLS`] cells (1×1: the poison alone).
    #[error("classic Chomp needs at least {CLASSIC_MIN_CELLS} cells, got {rows}×{cols}")]
    TooFewCells {
        /// The board's rows.
        rows: i64,
        /// The board's columns.
        cols: i64,
    },
    /// A JChomp configuration without an eat size.
    #[error("JChomp needs an eat size: eat must be 1–3 rows by 1–3 columns, such as [1,2]")]
    EatMissing,
    /// A classic configuration with an eat size.
    #[error("classic Chomp has no eat size; leave out eat")]
    EatInClassic,
    /// An edge-breaks configuration with an eat size.
    #[error("edge breaks have no eat size; leave out eat")]
    EatInBreaks,
    /// A square JChomp eat size with square bites banned: every selection would be refused.
    #[error(
        "no_square_bites forbids the square eat size {size}×{size}: every selection would bite a square; choose a size such as 1x2, or leave out no_square_bites"
    )]
    SquareEat {
        /// The eat size along either axis.
        size: i64,
    },
    /// Edge breaks with other than one poison cell.
    #[error("edge breaks need exactly one poison cell (the breaks are counted from it), got {got}")]
    BreaksPoison {
        /// The count given.
        got: usize,
    },
    /// The number of poison cells is outside 1 to min(4, rows·cols).
    #[error("poison must list {min}–{max} cells, got {got}")]
    PoisonCount {
        /// Smallest allowed count.
        min: usize,
        /// Largest allowed count.
        max: usize,
        /// The count given.
        got: usize,
    },
    /// A poison cell lies outside the board.
    #[error("poison[{index}] must lie inside the {rows}×{cols} board (row 0–{}, col 0–{}), got [{row},{col}]", rows - 1, cols - 1)]
    PoisonOutside {
        /// Position of the cell in the poison list.
        index: usize,
        /// The row given.
        row: i64,
        /// The column given.
        col: i64,
        /// The board's rows.
        rows: i64,
        /// The board's columns.
        cols: i64,
    },
    /// The same poison cell is listed twice.
    #[error("poison[{index}] repeats cell [{row},{col}]; poison cells must be distinct")]
    PoisonRepeated {
        /// Position of the repeat in the poison list.
        index: usize,
        /// Its row.
        row: i64,
        /// Its column.
        col: i64,
    },
}

impl ConfigError {
    /// The setting the error is about.
    pub fn field(&self) -> Field {
        match self {
            ConfigError::OutOfRange { field, .. } => *field,
            ConfigError::TooFewCells { .. } => Field::Rows,
            ConfigError::EatMissing | ConfigError::EatInClassic | ConfigError::EatInBreaks => {
                Field::Eat
            }
            ConfigError::SquareEat { .. } => Field::NoSquareBites,
            _ => Field::Poison,
        }
    }
}

/// How one selection eats, as [`Position::play`](crate::Position::play) branches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bite {
    /// JChomp with a 1×1 eat size: one cell.
    Cell,
    /// JChomp with a larger eat size: the rectangle of `eat_pattern`.
    Rect,
    /// Classic Chomp: the cell and everything below and right of it.
    Corner,
    /// Edge breaks: the rows or columns beyond a line of the bar.
    Break,
}

/// A validated game configuration. Only [`Config::new`] makes one, so every `Config` obeys the
/// JChomp restrictions. It is `Copy` and carries the masks the rules are computed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    rows: u8,
    cols: u8,
    players: u8,
    variant: Variant,
    options: Options,
    bite: Bite,
    /// The block of cells, anchored at a selection, that must all lie on the board and be
    /// uneaten for the selection to be valid: the eat size in JChomp, the one cell in classic.
    fit_rows: u8,
    fit_cols: u8,
    poison: [Cell; MAX_POISON],
    poison_len: u8,
    board: Bits,
    poison_mask: Bits,
    poison_zone: Bits,
    eat_pattern: u128,
    overlap_pattern: u128,
}

/// The in-range JChomp anchors whose `eat_rows` × `eat_cols` rectangle holds a poison cell.
fn rect_poison_zone(poison: Bits, rows: u8, cols: u8, eat_rows: u8, eat_cols: u8) -> Bits {
    // An anchor covers a poison cell iff it lies up to eat-1 rows above and eat-1 columns
    // left of it. Shifting towards bit 0 may wrap a poison cell in column 0 onto the right
    // end of the row above; keeping only cells where a whole rectangle fits drops those.
    let mut zone = Bits::EMPTY;
    for i in 0..eat_rows as u32 {
        for j in 0..eat_cols as u32 {
            zone |= poison.shr(i * super::bits::STRIDE + j);
        }
    }
    zone & Bits::rect(0, 0, rows - eat_rows + 1, cols - eat_cols + 1)
}

fn check(field: Field, (min, max): (u8, u8), got: i64) -> Result<u8, ConfigError> {
    if (min as i64..=max as i64).contains(&got) {
        Ok(got as u8)
    } else {
        Err(ConfigError::OutOfRange {
            field,
            min: min as i64,
            max: max as i64,
            got,
        })
    }
}

impl Config {
    /// Validates a setup. Checks, in order: rows, cols (in the variant's range), the number of
    /// cells (classic and breaks: at least two), players, the eat size (JChomp: given, eat
    /// rows, eat cols, not square when square bites are banned; classic and breaks: not given),
    /// the number of poison cells (breaks: exactly one), then each poison cell (inside the
    /// board, not repeated).
    pub fn new(setup: &Setup) -> Result<Config, ConfigError> {
        let size = setup.variant.board_size();
        let rows = check(Field::Rows, size, setup.rows)?;
        let cols = check(Field::Cols, size, setup.cols)?;
        if u16::from(rows) * u16::from(cols) < u16::from(CLASSIC_MIN_CELLS) {
            return Err(ConfigError::TooFewCells {
                rows: setup.rows,
                cols: setup.cols,
            });
        }
        let players = check(Field::Players, PLAYERS, setup.players)?;
        let (fit_rows, fit_cols) = match (setup.variant, setup.eat) {
            (Variant::JChomp, None) => return Err(ConfigError::EatMissing),
            (Variant::JChomp, Some([er, ec])) => (
                check(Field::EatRows, EAT_SIZE, er)?,
                check(Field::EatCols, EAT_SIZE, ec)?,
            ),
            (Variant::Classic, Some(_)) => return Err(ConfigError::EatInClassic),
            (Variant::Breaks, Some(_)) => return Err(ConfigError::EatInBreaks),
            (Variant::Classic | Variant::Breaks, None) => (1, 1),
        };
        if setup.options.no_square_bites && setup.variant.is_jchomp() && fit_rows == fit_cols {
            return Err(ConfigError::SquareEat {
                size: fit_rows.into(),
            });
        }
        if setup.variant == Variant::Breaks && setup.poison.len() != 1 {
            return Err(ConfigError::BreaksPoison {
                got: setup.poison.len(),
            });
        }
        let max = MAX_POISON.min(rows as usize * cols as usize);
        if setup.poison.is_empty() || setup.poison.len() > max {
            return Err(ConfigError::PoisonCount {
                min: 1,
                max,
                got: setup.poison.len(),
            });
        }
        let mut poison = [Cell::new(0, 0); MAX_POISON];
        let mut poison_mask = Bits::EMPTY;
        for (index, &[row, col]) in setup.poison.iter().enumerate() {
            if !(0..rows as i64).contains(&row) || !(0..cols as i64).contains(&col) {
                return Err(ConfigError::PoisonOutside {
                    index,
                    row,
                    col,
                    rows: rows as i64,
                    cols: cols as i64,
                });
            }
            let cell = Cell::new(row as u8, col as u8);
            if poison_mask.contains(cell.index()) {
                return Err(ConfigError::PoisonRepeated { index, row, col });
            }
            poison[index] = cell;
            poison_mask |= Bits::single(cell.index());
        }
        let board = Bits::rect(0, 0, rows, cols);
        let (bite, poison_zone) = match setup.variant {
            Variant::JChomp => {
                let bite = if (fit_rows, fit_cols) == (1, 1) {
                    Bite::Cell
                } else {
                    Bite::Rect
                };
                (
                    bite,
                    rect_poison_zone(poison_mask, rows, cols, fit_rows, fit_cols),
                )
            }
            // A break eats the poison only when it names the poison cell itself.
            Variant::Breaks => (Bite::Break, poison_mask),
            // A classic selection eats poison iff it lies at or above and at or left of a
            // poison cell: every poison cell is uneaten while the game goes on.
            Variant::Classic => (
                Bite::Corner,
                poison
                    .iter()
                    .take(setup.poison.len())
                    .fold(Bits::EMPTY, |z, p| {
                        z | Bits::rect(0, 0, p.row + 1, p.col + 1)
                    }),
            ),
        };
        Ok(Config {
            rows,
            cols,
            players,
            variant: setup.variant,
            options: setup.options,
            bite,
            fit_rows,
            fit_cols,
            poison,
            poison_len: setup.poison.len() as u8,
            board,
            poison_mask,
            poison_zone,
            eat_pattern: Bits::rect_pattern(fit_rows, fit_cols),
            overlap_pattern: Bits::rect_pattern(2 * fit_rows - 1, 2 * fit_cols - 1),
        })
    }

    /// Board rows.
    pub const fn rows(&self) -> u8 {
        self.rows
    }
    /// Board columns.
    pub const fn cols(&self) -> u8 {
        self.cols
    }
    /// Number of players (seats).
    pub const fn players(&self) -> u8 {
        self.players
    }
    /// The game played.
    pub const fn variant(&self) -> Variant {
        self.variant
    }
    /// Eat size as (rows, cols) in JChomp; `None` in classic Chomp and edge breaks.
    pub const fn eat(&self) -> Option<(u8, u8)> {
        match self.variant {
            Variant::JChomp => Some((self.fit_rows, self.fit_cols)),
            Variant::Classic | Variant::Breaks => None,
        }
    }
    /// The options beside the variant.
    pub const fn options(&self) -> Options {
        self.options
    }
    /// Misère or normal play.
    pub const fn play(&self) -> Play {
        self.options.play
    }
    /// Whether square bites are banned.
    pub const fn no_square_bites(&self) -> bool {
        self.options.no_square_bites
    }
    /// The block anchored at a selection whose cells must all lie on the board and be uneaten
    /// for it to be valid, as (rows, cols): the eat size in JChomp, 1×1 (the selected cell
    /// alone) in classic Chomp and edge breaks.
    pub const fn fit(&self) -> (u8, u8) {
        (self.fit_rows, self.fit_cols)
    }
    /// How a selection eats (the branch of the move maker).
    #[inline]
    pub(crate) const fn bite(&self) -> Bite {
        self.bite
    }
    /// The poison cells, in the order they were given.
    pub fn poison(&self) -> &[Cell] {
        &self.poison[..self.poison_len as usize]
    }
    /// Every cell of the board.
    pub const fn board(&self) -> Bits {
        self.board
    }
    /// The poison cells as a set.
    pub const fn poison_mask(&self) -> Bits {
        self.poison_mask
    }
    /// The in-range selections (top-left cells) whose eaten cells hold at least one poison
    /// cell while every poison cell is uneaten: in JChomp the anchors whose rectangle holds
    /// poison, in classic Chomp the cells at or above and at or left of a poison cell, with
    /// edge breaks the poison cell.
    pub const fn poison_zone(&self) -> Bits {
        self.poison_zone
    }
    /// The rectangle eaten by the JChomp selection anchored at `cell`, which must be a valid
    /// anchor.
    #[inline]
    pub(crate) fn eaten_by(&self, cell: Cell) -> Bits {
        Bits::placed(self.eat_pattern, cell.index() as i32)
    }

    /// The anchors of every JChomp selection whose rectangle overlaps the one anchored at
    /// `cell` (a valid anchor), possibly with extra cells in columns where no selection can be
    /// anchored.
    #[inline]
    pub(crate) fn overlapping(&self, cell: Cell) -> Bits {
        let back = (self.fit_rows as u32 - 1) * super::bits::STRIDE + (self.fit_cols as u32 - 1);
        // Cells left of column 0 wrap onto columns 14 and 15 of the row above: column 15 is
        // never on a board, and column 14 anchors a selection only when the eat width is 1,
        // which reaches no column to the left.
        Bits::placed(self.overlap_pattern, cell.index() as i32 - back as i32)
    }

    /// The cells that a selection at `cell` eats on a whole board (eaten ones included),
    /// clipped to the board: the eat rectangle anchored there in JChomp; in classic Chomp the
    /// rectangle from `cell` to the bottom-right corner; with edge breaks every cell beyond
    /// the line the break names (the whole board for the poison cell; nothing off its cross).
    #[inline]
    pub fn rect(&self, cell: Cell) -> Bits {
        let cells = match self.variant {
            Variant::JChomp => Bits::rect(cell.row, cell.col, self.fit_rows, self.fit_cols),
            Variant::Classic => Bits::below_right(cell.row, cell.col),
            Variant::Breaks => super::bite::break_piece(self, cell),
        };
        cells & self.board
    }

    /// The valid selections on a set of uneaten cells (`uneaten` must hold no cell off the
    /// board): the anchors of every uneaten [`Config::fit`] block, on the poison's cross with
    /// edge breaks, less those that bite a square when square bites are banned.
    #[inline]
    pub fn selections_in(&self, uneaten: Bits) -> Bits {
        let fits = anchors(uneaten, self.fit_rows, self.fit_cols);
        let named = match self.variant {
            Variant::Breaks => fits & super::bite::cross(self),
            _ => fits,
        };
        if self.options.no_square_bites && !self.variant.is_jchomp() {
            super::bite::without_squares(self, uneaten, named)
        } else {
            named
        }
    }

    /// The setup this configuration was made from.
    pub fn to_setup(&self) -> Setup {
        Setup {
            rows: self.rows as i64,
            cols: self.cols as i64,
            players: self.players as i64,
            variant: self.variant,
            eat: self.eat().map(|(er, ec)| [i64::from(er), i64::from(ec)]),
            poison: self
                .poison()
                .iter()
                .map(|c| [c.row as i64, c.col as i64])
                .collect(),
            options: self.options,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Setup {
        "6x7 eat 1x2 poison 0,0".parse().unwrap()
    }

    #[test]
    fn valid_setup_round_trips() {
        let c = Config::new(&setup()).unwrap();
        assert_eq!(
            (c.rows(), c.cols(), c.players(), c.eat()),
            (6, 7, 2, Some((1, 2)))
        );
        assert_eq!(c.poison(), &[Cell::new(0, 0)]);
        assert_eq!(c.board().count(), 42);
        assert_eq!(c.to_setup(), setup());
    }

    #[test]
    fn each_field_names_its_range_and_value() {
        let cases: Vec<(Setup, &str)> = vec![
            (Setup { rows: 3, ..setup() }, "rows must be 4–15, got 3"),
            (
                Setup {
                    cols: 16,
                    ..setup()
                },
                "cols must be 4–15, got 16",
            ),
            (
                Setup {
                    players: 1,
                    ..setup()
                },
                "players must be 2–4, got 1",
            ),
            (
                Setup {
                    players: 5,
                    ..setup()
                },
                "players must be 2–4, got 5",
            ),
            (
                Setup {
                    eat: Some([0, 1]),
                    ..setup()
                },
                "eat[0] must be 1–3, got 0",
            ),
            (
                Setup {
                    eat: Some([1, 4]),
                    ..setup()
                },
                "eat[1] must be 1–3, got 4",
            ),
            (
                Setup {
                    poison: vec![],
                    ..setup()
                },
                "poison must list 1–4 cells, got 0",
            ),
            (
                Setup {
                    poison: vec![[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]],
                    ..setup()
                },
                "poison must list 1–4 cells, got 5",
            ),
            (
                Setup {
                    poison: vec![[0, 0], [6, 0]],
                    ..setup()
                },
                "poison[1] must lie inside the 6×7 board (row 0–5, col 0–6), got [6,0]",
            ),
            (
                Setup {
                    poison: vec![[-1, 0]],
                    ..setup()
                },
                "poison[0] must lie inside the 6×7 board (row 0–5, col 0–6), got [-1,0]",
            ),
            (
                Setup {
                    poison: vec![[2, 3], [2, 3]],
                    ..setup()
                },
                "poison[1] repeats cell [2,3]; poison cells must be distinct",
            ),
        ];
        for (s, msg) in cases {
            assert_eq!(Config::new(&s).unwrap_err().to_string(), msg);
        }
    }

    #[test]
    fn the_eat_size_is_required_in_jchomp_and_refused_in_classic() {
        let missing = Setup {
            eat: None,
            ..setup()
        };
        let err = Config::new(&missing).unwrap_err();
        assert_eq!(
            err.to_string(),
            "JChomp needs an eat size: eat must be 1–3 rows by 1–3 columns, such as [1,2]"
        );
        assert_eq!(err.field(), Field::Eat);
        let classic = Setup {
            variant: Variant::Classic,
            ..setup()
        };
        let err = Config::new(&classic).unwrap_err();
        assert_eq!(
            err.to_string(),
            "classic Chomp has no eat size; leave out eat"
        );
        assert_eq!((err.field(), err.field().name()), (Field::Eat, "eat"));
        // Rows, columns and players are checked first, poison after, as in JChomp.
        assert_eq!(
            Config::new(&Setup {
                rows: 16,
                ..classic.clone()
            })
            .unwrap_err()
            .to_string(),
            "rows must be 1–15, got 16"
        );
        let classic = Setup {
            eat: None,
            ..classic
        };
        let c = Config::new(&classic).unwrap();
        assert_eq!(
            (c.variant(), c.eat(), c.fit()),
            (Variant::Classic, None, (1, 1))
        );
        assert_eq!(c.to_setup(), classic);
        assert_eq!(
            Config::new(&Setup {
                poison: vec![],
                ..classic
            })
            .unwrap_err()
            .to_string(),
            "poison must list 1–4 cells, got 0"
        );
    }

    #[test]
    fn board_sizes_depend_on_the_variant() {
        let classic = |rows, cols| Setup {
            rows,
            cols,
            variant: Variant::Classic,
            eat: None,
            ..setup()
        };
        // Classic Chomp: 1–15 each way, at least two cells; the standard 3×5 bar among them.
        for (rows, cols) in [(1, 2), (2, 1), (3, 5), (5, 4), (1, 15), (15, 1), (15, 15)] {
            let c = Config::new(&classic(rows, cols)).unwrap();
            assert_eq!((c.rows(), c.cols()), (rows as u8, cols as u8));
            assert_eq!(c.board().count(), (rows * cols) as u32);
        }
        let refused = [
            (
                classic(1, 1),
                "classic Chomp needs at least 2 cells, got 1×1",
            ),
            (classic(0, 5), "rows must be 1–15, got 0"),
            (classic(3, 16), "cols must be 1–15, got 16"),
            (classic(-1, 1), "rows must be 1–15, got -1"),
        ];
        for (s, msg) in refused {
            let err = Config::new(&s).unwrap_err();
            assert_eq!(err.to_string(), msg);
            assert!(matches!(err.field(), Field::Rows | Field::Cols));
        }
        // JChomp keeps 4–15.
        for (rows, cols, msg) in [
            (3, 5, "rows must be 4–15, got 3"),
            (5, 1, "cols must be 4–15, got 1"),
        ] {
            let err = Config::new(&Setup {
                rows,
                cols,
                ..setup()
            })
            .unwrap_err();
            assert_eq!(err.to_string(), msg);
        }
        assert_eq!(Variant::JChomp.board_size(), BOARD_SIZE);
        assert_eq!(Variant::Classic.board_size(), CLASSIC_BOARD_SIZE);
    }

    #[test]
    fn one_row_and_one_column_bars_have_their_masks() {
        let row: Config = "1x15 variant classic poison 0,0".parse().unwrap();
        assert_eq!(row.board(), Bits::rect(0, 0, 1, 15));
        assert_eq!(row.poison_zone(), Bits::single(0));
        assert_eq!(row.rect(Cell::new(0, 3)), Bits::rect(0, 3, 1, 12));
        assert_eq!(row.selections_in(row.board()), row.board());
        let col: Config = "15x1 variant classic poison 14,0".parse().unwrap();
        assert_eq!(col.board(), Bits::rect(0, 0, 15, 1));
        assert_eq!(col.poison_zone(), col.board());
        assert_eq!(col.rect(Cell::new(4, 0)), Bits::rect(4, 0, 11, 1));
        assert_eq!(col.selections_in(col.board()), col.board());
        // Two cells, both poison: every selection eats poison.
        let both: Config = "1x2 variant classic poison 0,0 poison 0,1".parse().unwrap();
        assert_eq!(both.poison_zone(), both.board());
        assert_eq!(
            "1x2 variant classic poison 0,0 poison 0,1 poison 0,0"
                .parse::<Config>()
                .unwrap_err()
                .to_string(),
            "poison must list 1–2 cells, got 3"
        );
    }

    #[test]
    fn classic_poison_zone_is_every_cell_above_and_left_of_poison() {
        let c: Config = "5x5 variant classic poison 2,0 poison 1,3".parse().unwrap();
        let zone = Bits::rect(0, 0, 3, 1) | Bits::rect(0, 0, 2, 4);
        assert_eq!(c.poison_zone(), zone);
        assert_eq!(c.rect(Cell::new(1, 2)), Bits::rect(1, 2, 4, 3));
        assert_eq!(c.selections_in(c.board()), c.board());
    }

    #[test]
    fn poison_zone_marks_anchors_covering_poison() {
        let c: Config = "5x5 eat 2x3 poison 2,0 poison 4,4".parse().unwrap();
        // Anchors fit in rows 0–3 and cols 0–2.
        let expected = vec![Cell::new(1, 0), Cell::new(2, 0), Cell::new(3, 2)];
        let got: Vec<Cell> = c.poison_zone().iter().map(Cell::from_index).collect();
        assert_eq!(got, expected);
    }
}
