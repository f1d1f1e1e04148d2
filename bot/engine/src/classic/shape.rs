//! [`Shape`]: a classic Chomp position as its row lengths, top row first (`[5,5,3]`, as
//! Games::Chomp writes them), with the poison at the top-left cell (0, 0).
//!
//! In classic Chomp every position is a down-set of the board: row lengths never grow from one
//! row to the next. Selecting (r, c) eats that cell and every cell below and to the right of it,
//! so each row `i >= r` becomes at most `c` long.

use std::fmt;

/// The most rows and columns a shape may have.
pub const MAX_SIDE: usize = 15;

/// A classic position: `rows[i]` cells in row `i`, non-increasing, at most [`MAX_SIDE`] rows
/// of at most [`MAX_SIDE`] cells. Trailing empty rows are not stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    rows: [u8; MAX_SIDE],
    height: u8,
}

/// Why a list of row lengths is not a classic position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A length is not a whole number.
    #[error("row lengths are whole numbers separated by commas, such as 5,5,3; got {0:?}")]
    Syntax(String),
    /// More rows, or a longer row, than a board holds.
    #[error("a classic position fits in 15 rows of 15 cells, got {0:?}")]
    TooLarge(String),
    /// A row longer than the row above it.
    #[error(
        "row {row} is longer than the row above it ({len} > {above}): rows never grow downwards"
    )]
    Grows {
        /// The row (0 is the top).
        row: usize,
        /// Its length.
        len: u8,
        /// The length of the row above.
        above: u8,
    },
}

impl Shape {
    /// The empty board (the poison eaten: the game is over).
    pub const EMPTY: Shape = Shape {
        rows: [0; MAX_SIDE],
        height: 0,
    };

    /// A full `rows` × `cols` rectangle (each at most [`MAX_SIDE`]).
    pub fn rectangle(rows: usize, cols: usize) -> Result<Shape, ShapeError> {
        Shape::from_rows(&vec![cols.min(255) as u8; rows])
    }

    /// The shape with these row lengths, top row first; trailing zeros are dropped.
    pub fn from_rows(lengths: &[u8]) -> Result<Shape, ShapeError> {
        let mut shape = Shape::EMPTY;
        let mut above = MAX_SIDE as u8;
        for (row, &len) in lengths.iter().enumerate() {
            if len as usize > MAX_SIDE || (row >= MAX_SIDE && len > 0) {
                return Err(ShapeError::TooLarge(format!("{lengths:?}")));
            }
            if len > above {
                return Err(ShapeError::Grows { row, len, above });
            }
            if len > 0 {
                shape.rows[row] = len;
                shape.height = row as u8 + 1;
            }
            above = len;
        }
        Ok(shape)
    }

    /// The row lengths, top row first, without trailing empty rows.
    pub fn rows(&self) -> &[u8] {
        &self.rows[..self.height as usize]
    }

    /// The length of row `i` (0 past the last row).
    pub fn row(&self, i: usize) -> u8 {
        self.rows.get(i).copied().unwrap_or(0)
    }

    /// The number of rows that hold a cell.
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The length of the top row.
    pub fn width(&self) -> usize {
        self.rows[0] as usize
    }

    /// The number of cells left, poison included.
    pub fn cells(&self) -> usize {
        self.rows().iter().map(|&l| l as usize).sum()
    }

    /// How many shapes lie inside this one (row lengths never above its own), itself and the
    /// empty one included: every classic position that can follow it. Counted row by row from
    /// the bottom, without listing them.
    pub(crate) fn shapes_inside(&self) -> u128 {
        let width = self.width();
        // at_most[v]: the shapes of the rows below the current one whose top row has at most
        // v cells (none below: one, the empty one). A row of length `len` holds u <= min(v,
        // len) cells above any shape whose top row has at most u.
        let mut at_most = vec![1u128; width + 1];
        for &len in self.rows().iter().rev() {
            let len = usize::from(len);
            let mut next = vec![0u128; width + 1];
            for v in 0..=width {
                next[v] = if v <= len {
                    at_most[v] + v.checked_sub(1).map_or(0, |u| next[u])
                } else {
                    next[len]
                };
            }
            at_most = next;
        }
        at_most[width]
    }

    /// Whether cell (r, c) is still there.
    pub fn contains(&self, r: usize, c: usize) -> bool {
        c < self.row(r) as usize
    }

    /// The position after selecting (r, c), or `None` if that cell is already eaten.
    pub fn select(&self, r: usize, c: usize) -> Option<Shape> {
        if !self.contains(r, c) {
            return None;
        }
        let mut next = *self;
        for len in &mut next.rows[r..] {
            *len = (*len).min(c as u8);
        }
        let mut h = next.height as usize;
        while h > 0 && next.rows[h - 1] == 0 {
            h -= 1;
        }
        next.height = h as u8;
        Some(next)
    }

    /// The same position seen across its diagonal (rows become columns).
    pub fn transpose(&self) -> Shape {
        let mut t = Shape::EMPTY;
        for c in 0..self.width() {
            let len = self.rows().iter().filter(|&&l| l as usize > c).count();
            t.rows[c] = len as u8;
        }
        t.height = self.rows[0];
        t
    }
}

impl std::str::FromStr for Shape {
    type Err = ShapeError;

    /// Parses row lengths such as `5,5,3` (brackets and spaces allowed: `[5, 5, 3]`).
    fn from_str(s: &str) -> Result<Shape, ShapeError> {
        let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
        let lengths = inner
            .split(',')
            .map(|p| p.trim().parse::<u8>())
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| ShapeError::Syntax(s.to_owned()))?;
        Shape::from_rows(&lengths)
    }
}

impl fmt::Display for Shape {
    /// Row lengths separated by commas, top row first (`5,5,3`); `0` for the empty board.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.height == 0 {
            return f.write_str("0");
        }
        for (i, len) in self.rows().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{len}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape[{self}]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prints_and_refuses() {
        let s: Shape = "[5, 5, 3]".parse().unwrap();
        assert_eq!(s.rows(), &[5, 5, 3]);
        assert_eq!(s.to_string(), "5,5,3");
        assert_eq!("4,0,0".parse::<Shape>().unwrap().to_string(), "4");
        assert!(matches!("5,x".parse::<Shape>(), Err(ShapeError::Syntax(_))));
        assert!(matches!(
            "3,4".parse::<Shape>(),
            Err(ShapeError::Grows {
                row: 1,
                len: 4,
                above: 3
            })
        ));
        assert!(matches!(
            "16".parse::<Shape>(),
            Err(ShapeError::TooLarge(_))
        ));
        let sixteen_rows = vec!["1"; 16].join(",");
        assert!(matches!(
            sixteen_rows.parse::<Shape>(),
            Err(ShapeError::TooLarge(_))
        ));
    }

    #[test]
    fn selecting_eats_below_and_right() {
        let s = Shape::rectangle(4, 6).unwrap();
        let after = s.select(1, 3).unwrap();
        assert_eq!(after.rows(), &[6, 3, 3, 3]);
        assert_eq!(after.select(0, 0).unwrap(), Shape::EMPTY);
        assert_eq!(after.select(1, 3), None);
        assert_eq!(after.select(2, 0).unwrap().rows(), &[6, 3]);
        assert_eq!(after.cells(), 15);
    }

    #[test]
    fn transposing_twice_is_the_identity() {
        let s: Shape = "5,5,3,1".parse().unwrap();
        assert_eq!(s.transpose().rows(), &[4, 3, 3, 2, 2]);
        assert_eq!(s.transpose().transpose(), s);
    }
}
