//! What both directions share: the line limit, the words of a line, cells as `ROW,COL`, and
//! why a line does not read.

use jchomp_rules::Cell;

/// The longest line either side may send, in bytes (docs/ENGINE.md).
pub const MAX_LINE: usize = 65_536;

/// Why a line with a known first word does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// A word needs a value and the line ends.
    #[error("{0:?} needs a value")]
    Missing(&'static str),
    /// A value does not read as what its word needs.
    #[error("{word:?} expects {expected}, got {got:?}")]
    Value {
        /// The word whose value it is.
        word: &'static str,
        /// What it should be.
        expected: &'static str,
        /// What was given.
        got: String,
    },
    /// A word that has no place in this line.
    #[error("unexpected {0:?}")]
    Unexpected(String),
    /// The configuration's JSON does not read.
    #[error("the configuration does not read as JSON: {0}")]
    Config(String),
}

/// Reads `ROW,COL` (0-based, no blanks) as a cell.
pub(crate) fn parse_cell(word: &'static str, text: &str) -> Result<Cell, LineError> {
    let bad = || LineError::Value {
        word,
        expected: "a cell ROW,COL such as 2,3",
        got: text.to_string(),
    };
    let (r, c) = text.split_once(',').ok_or_else(bad)?;
    Ok(Cell::new(
        r.parse().map_err(|_| bad())?,
        c.parse().map_err(|_| bad())?,
    ))
}

/// Reads a whole number as the value of `word`.
pub(crate) fn parse_number<T: std::str::FromStr>(
    word: &'static str,
    text: Option<&str>,
) -> Result<T, LineError> {
    let text = text.ok_or(LineError::Missing(word))?;
    text.parse().map_err(|_| LineError::Value {
        word,
        expected: "a whole number",
        got: text.to_string(),
    })
}

/// The words of a line: split on blanks, a trailing `\r` and surrounding blanks ignored.
pub(crate) fn words(line: &str) -> std::str::SplitWhitespace<'_> {
    line.split_whitespace()
}

/// The rest of `line` after its first `n` words, trimmed (for values that may hold blanks).
pub(crate) fn rest_after(line: &str, n: usize) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_row_comma_col() {
        assert_eq!(parse_cell("bestmove", "2,13"), Ok(Cell::new(2, 13)));
        assert!(parse_cell("bestmove", "2, 3").is_err());
        assert!(parse_cell("bestmove", "-1,3").is_err());
        assert!(parse_cell("bestmove", "23").is_err());
    }

    #[test]
    fn the_rest_of_a_line_keeps_its_inner_blanks() {
        assert_eq!(rest_after("  id   name  My  Engine \r", 2), "My  Engine");
        assert_eq!(rest_after("id name", 2), "");
    }
}
