//! Board notation, one line a board: `"6x7 eat 1x2 poison 0,0"`, parsed into a [`Setup`] or a
//! [`Config`] and printed back from a [`Config`]; and the token parsers (`AxB`, `R,C`, a
//! variant) behind it that every command-line flag shares.
//!
//! Grammar: `ROWSxCOLS`, then in any order `variant jchomp|classic|breaks`, `eat RxC`,
//! `poison R,C` (repeatable), `players N`, `play misere|normal` and the bare word
//! `no_square_bites`. `×` stands for `x`, case does not matter. Defaults: JChomp,
//! eat 1x1 (JChomp only: classic Chomp has no eat size), poison 0,0 when none is given, two
//! players, misère play, square bites allowed. A classic board reads
//! `"6x7 variant classic poison 0,0"`; `"3x5 variant breaks poison 1,2 play normal"` breaks
//! edges in normal play.

use crate::config::{Config, ConfigError, Setup, Variant};
use crate::options::{Options, Play};
use std::fmt;
use std::str::FromStr;

/// An example board, as the error messages show it.
const EXAMPLE: &str = "6x7 eat 1x2 poison 0,0";
/// An example classic board, as the error messages about a variant show it.
const CLASSIC_EXAMPLE: &str = "6x7 variant classic poison 0,0";

/// An example of the setting `key` with its value, for [`NotationError::Missing`].
fn example(key: &str) -> String {
    match key {
        "variant" => CLASSIC_EXAMPLE.to_string(),
        "play" => format!("{CLASSIC_EXAMPLE} play normal"),
        _ => format!("{EXAMPLE} players 3"),
    }
}

/// Why a text is not a board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// The text does not start with a board size.
    #[error("expected a board such as \"{EXAMPLE}\", got {0:?}")]
    Board(String),
    /// A value is not two numbers joined by `x`.
    #[error("expected two numbers as AxB, e.g. 5x6, got {0:?}")]
    Pair(String),
    /// A value is not a cell.
    #[error("expected a cell as ROW,COL, e.g. 0,0, got {0:?}")]
    Cell(String),
    /// A value is not a whole number.
    #[error("expected a number of players, e.g. 3, got {0:?}")]
    Players(String),
    /// A value names no variant.
    #[error(
        "expected a variant, jchomp, classic or breaks, as in \"{CLASSIC_EXAMPLE}\", got {0:?}"
    )]
    Variant(String),
    /// A value names no play convention.
    #[error("expected play misere or play normal, got {0:?}")]
    Play(String),
    /// A variant's name where a setting should be.
    #[error("{0:?} names a variant: write \"variant {0}\", as in \"{CLASSIC_EXAMPLE}\"")]
    BareVariant(String),
    /// A word that names no setting.
    #[error(
        "unknown word {0:?} in a board: after the size come eat RxC, poison R,C, players N, variant V, play P and no_square_bites"
    )]
    Unknown(String),
    /// A setting with nothing after it.
    #[error("{0} needs a value, as in \"{example}\"", example = example(.0))]
    Missing(&'static str),
    /// `eat`, `players` or `variant` given twice.
    #[error("{0} is given twice; only poison may be repeated")]
    Repeated(&'static str),
    /// The board reads well but breaks a rule (for a [`Config`]).
    #[error(transparent)]
    Invalid(#[from] ConfigError),
}

fn parse_two(s: &str, sep: char) -> Option<(i64, i64)> {
    let (a, b) = s.split_once(sep)?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// Parses `AxB` (also `A×B`, `AXB`) into two integers, e.g. a board size `5x6`.
pub fn parse_pair_x(s: &str) -> Result<(i64, i64), NotationError> {
    parse_two(&s.replace('×', "x").to_ascii_lowercase(), 'x')
        .ok_or_else(|| NotationError::Pair(s.to_string()))
}

/// Parses `ROW,COL` into two integers, e.g. a poison cell `0,0`.
pub fn parse_cell(s: &str) -> Result<(i64, i64), NotationError> {
    parse_two(s, ',').ok_or_else(|| NotationError::Cell(s.to_string()))
}

/// Parses a variant's name, `jchomp` or `classic` (case does not matter).
pub fn parse_variant(s: &str) -> Result<Variant, NotationError> {
    Variant::from_name(s.trim()).ok_or_else(|| NotationError::Variant(s.to_string()))
}

impl FromStr for Variant {
    type Err = NotationError;

    /// Reads `jchomp` or `classic`.
    fn from_str(s: &str) -> Result<Variant, NotationError> {
        parse_variant(s)
    }
}

impl FromStr for Setup {
    type Err = NotationError;

    /// Reads a board in the notation; the numbers are not checked against the rules.
    fn from_str(s: &str) -> Result<Setup, NotationError> {
        let mut words = s.split_whitespace();
        let (rows, cols) = words
            .next()
            .and_then(|w| parse_pair_x(w).ok())
            .ok_or_else(|| NotationError::Board(s.trim().to_string()))?;
        let mut eat = None;
        let mut players = None;
        let mut variant = None;
        let mut poison = Vec::new();
        let mut play = None;
        let mut options = Options::default();
        while let Some(word) = words.next() {
            let key = match word.to_ascii_lowercase().as_str() {
                "no_square_bites" if options.no_square_bites => {
                    return Err(NotationError::Repeated("no_square_bites"));
                }
                "no_square_bites" => {
                    options.no_square_bites = true;
                    continue;
                }
                "play" => "play",
                "eat" => "eat",
                "poison" => "poison",
                "players" => "players",
                "variant" => "variant",
                _ if Variant::from_name(word).is_some() => {
                    return Err(NotationError::BareVariant(word.to_ascii_lowercase()));
                }
                _ => return Err(NotationError::Unknown(word.to_string())),
            };
            let value = words.next().ok_or(NotationError::Missing(key))?;
            match key {
                "eat" if eat.is_some() => return Err(NotationError::Repeated(key)),
                "eat" => eat = Some(parse_pair_x(value)?),
                "players" if players.is_some() => return Err(NotationError::Repeated(key)),
                "players" => {
                    let n = value.parse::<i64>();
                    players = Some(n.map_err(|_| NotationError::Players(value.to_string()))?);
                }
                "variant" if variant.is_some() => return Err(NotationError::Repeated(key)),
                "variant" => variant = Some(parse_variant(value)?),
                "play" if play.is_some() => return Err(NotationError::Repeated(key)),
                "play" => {
                    let p = Play::from_name(value);
                    play = Some(p.ok_or_else(|| NotationError::Play(value.to_string()))?);
                }
                _ => poison.push(parse_cell(value)?),
            }
        }
        let variant = variant.unwrap_or_default();
        // JChomp eats 1x1 unless told; classic has no eat size (one given is kept, for
        // `Config::new` to refuse in words).
        let eat = match (variant, eat) {
            (_, Some((eat_rows, eat_cols))) => Some([eat_rows, eat_cols]),
            (Variant::JChomp, None) => Some([1, 1]),
            (Variant::Classic | Variant::Breaks, None) => None,
        };
        options.play = play.unwrap_or_default();
        if poison.is_empty() {
            poison.push((0, 0));
        }
        Ok(Setup {
            rows,
            cols,
            players: players.unwrap_or(2),
            variant,
            eat,
            poison: poison.into_iter().map(|(r, c)| [r, c]).collect(),
            options,
        })
    }
}

impl FromStr for Config {
    type Err = NotationError;

    /// Reads a board in the notation and checks it against the rules.
    fn from_str(s: &str) -> Result<Config, NotationError> {
        Ok(Config::new(&s.parse::<Setup>()?)?)
    }
}

impl fmt::Display for Config {
    /// The board in the notation: size, eat (JChomp) or the variant, every poison cell, the
    /// players unless two, then the options unless default; parsing it gives the same configuration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows(), self.cols())?;
        match self.eat() {
            Some((eat_rows, eat_cols)) => write!(f, " eat {eat_rows}x{eat_cols}")?,
            None => write!(f, " variant {}", self.variant())?,
        }
        for cell in self.poison() {
            write!(f, " poison {cell}")?;
        }
        if self.players() != 2 {
            write!(f, " players {}", self.players())?;
        }
        if !self.play().is_misere() {
            write!(f, " play {}", self.play())?;
        }
        if self.no_square_bites() {
            write!(f, " no_square_bites")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_examples_with_defaults() {
        let s: Setup = "6x7 eat 1x2 poison 0,0".parse().unwrap();
        assert_eq!(
            s,
            Setup {
                rows: 6,
                cols: 7,
                players: 2,
                variant: Variant::JChomp,
                eat: Some([1, 2]),
                poison: vec![[0, 0]],
                options: Options::default(),
            }
        );
        let s: Setup = "5x6 eat 1x2 poison 0,0 poison 4,5 players 3"
            .parse()
            .unwrap();
        assert_eq!((s.players, s.poison), (3, vec![[0, 0], [4, 5]]));
        let s: Setup = "4x5".parse().unwrap();
        assert_eq!(
            (s.eat, s.players, s.poison),
            (Some([1, 1]), 2, vec![[0, 0]])
        );
    }

    #[test]
    fn clauses_come_in_any_order_in_any_case() {
        let a: Config = "5×6 PLAYERS 4 Poison 1,2 eat 2X1 poison 3,3"
            .parse()
            .unwrap();
        let b: Config = "5x6 eat 2x1 poison 1,2 poison 3,3 players 4"
            .parse()
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.players(), 4);
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "6x7 eat 1x2 poison 0,0",
            "5x6 eat 1x2 poison 0,0 poison 4,5 players 3",
            "15x4 eat 3x3 poison 14,3 poison 0,0 poison 7,2 poison 1,1 players 4",
            "4x4 eat 1x1 poison 3,3",
        ] {
            let config: Config = text.parse().unwrap();
            assert_eq!(config.to_string(), text);
            assert_eq!(config.to_string().parse::<Config>(), Ok(config));
        }
        let short: Config = "4x5".parse().unwrap();
        assert_eq!(short.to_string(), "4x5 eat 1x1 poison 0,0");
    }

    #[test]
    fn every_error_says_what_was_expected() {
        let cases = [
            (
                "",
                "expected a board such as \"6x7 eat 1x2 poison 0,0\", got \"\"",
            ),
            (
                " eat 1x2 ",
                "expected a board such as \"6x7 eat 1x2 poison 0,0\", got \"eat 1x2\"",
            ),
            (
                "6by7",
                "expected a board such as \"6x7 eat 1x2 poison 0,0\", got \"6by7\"",
            ),
            (
                "6x7 eat 1-2",
                "expected two numbers as AxB, e.g. 5x6, got \"1-2\"",
            ),
            (
                "6x7 poison 0;0",
                "expected a cell as ROW,COL, e.g. 0,0, got \"0;0\"",
            ),
            (
                "6x7 players two",
                "expected a number of players, e.g. 3, got \"two\"",
            ),
            (
                "6x7 bite 1x2",
                "unknown word \"bite\" in a board: after the size come eat RxC, poison R,C, players N, variant V, play P and no_square_bites",
            ),
            (
                "6x7 eat",
                "eat needs a value, as in \"6x7 eat 1x2 poison 0,0 players 3\"",
            ),
            (
                "6x7 eat 1x2 eat 2x1",
                "eat is given twice; only poison may be repeated",
            ),
            (
                "6x7 players 2 players 3",
                "players is given twice; only poison may be repeated",
            ),
        ];
        for (text, message) in cases {
            let err = text.parse::<Setup>().unwrap_err();
            assert_eq!(err.to_string(), message, "{text:?}");
            assert_eq!(text.parse::<Config>().unwrap_err(), err, "{text:?}");
        }
    }

    #[test]
    fn a_config_must_obey_the_rules() {
        let err = "3x7".parse::<Config>().unwrap_err();
        assert!(matches!(err, NotationError::Invalid(_)), "{err:?}");
        assert_eq!(err.to_string(), "rows must be 4–15, got 3");
        assert_eq!(
            "6x7 poison 6,0".parse::<Config>().unwrap_err().to_string(),
            "poison[0] must lie inside the 6×7 board (row 0–5, col 0–6), got [6,0]"
        );
        // The setup itself is read as written.
        assert_eq!("3x7".parse::<Setup>().map(|s| s.rows), Ok(3));
        // Classic Chomp takes small bars, but not the poison alone.
        assert_eq!(
            "1x1 variant classic"
                .parse::<Config>()
                .unwrap_err()
                .to_string(),
            "classic Chomp needs at least 2 cells, got 1×1"
        );
    }

    #[test]
    fn classic_boards_read_and_print_without_an_eat_size() {
        let s: Setup = "6x7 variant classic poison 0,0".parse().unwrap();
        assert_eq!(
            s,
            Setup {
                rows: 6,
                cols: 7,
                players: 2,
                variant: Variant::Classic,
                eat: None,
                poison: vec![[0, 0]],
                options: Options::default(),
            }
        );
        for text in [
            "6x7 variant classic poison 0,0",
            "15x4 variant classic poison 14,3 poison 0,0 players 4",
            "3x5 variant classic poison 0,0",
            "1x2 variant classic poison 0,1",
            "2x1 variant classic poison 1,0 poison 0,0 players 3",
            "1x15 variant classic poison 0,14",
            "15x1 variant classic poison 7,0",
        ] {
            let config: Config = text.parse().unwrap();
            assert_eq!(config.variant(), Variant::Classic);
            assert_eq!(config.eat(), None);
            assert_eq!(config.to_string(), text);
            assert_eq!(config.to_string().parse::<Config>(), Ok(config));
        }
        let short: Config = "5x5 VARIANT Classic".parse().unwrap();
        assert_eq!(short.to_string(), "5x5 variant classic poison 0,0");
        // JChomp named outright prints as it always has.
        let named: Config = "6x7 variant jchomp eat 1x2 poison 0,0".parse().unwrap();
        assert_eq!(named.to_string(), "6x7 eat 1x2 poison 0,0");
        assert_eq!(named, "6x7 eat 1x2 poison 0,0".parse::<Config>().unwrap());
    }

    #[test]
    fn variant_errors_say_what_was_expected() {
        let cases = [
            (
                "6x7 variant",
                "variant needs a value, as in \"6x7 variant classic poison 0,0\"",
            ),
            (
                "6x7 variant misere",
                "expected a variant, jchomp, classic or breaks, as in \"6x7 variant classic poison 0,0\", got \"misere\"",
            ),
            (
                "6x7 Classic",
                "\"classic\" names a variant: write \"variant classic\", as in \"6x7 variant classic poison 0,0\"",
            ),
            (
                "6x7 variant classic variant jchomp",
                "variant is given twice; only poison may be repeated",
            ),
        ];
        for (text, message) in cases {
            let err = text.parse::<Setup>().unwrap_err();
            assert_eq!(err.to_string(), message, "{text:?}");
        }
        // An eat size reads, but a classic configuration refuses it in words.
        let s: Setup = "6x7 variant classic eat 1x2".parse().unwrap();
        assert_eq!(s.eat, Some([1, 2]));
        assert_eq!(
            "6x7 eat 1x2 variant classic"
                .parse::<Config>()
                .unwrap_err()
                .to_string(),
            "classic Chomp has no eat size; leave out eat"
        );
        assert_eq!(parse_variant(" classic"), Ok(Variant::Classic));
        assert_eq!("JCHOMP".parse::<Variant>(), Ok(Variant::JChomp));
    }

    #[test]
    fn options_read_and_print_after_the_board() {
        let s: Setup = "3x5 variant breaks poison 1,2 NO_SQUARE_BITES play Normal"
            .parse()
            .unwrap();
        assert_eq!(
            s.options,
            Options {
                play: Play::Normal,
                no_square_bites: true
            }
        );
        let config: Config = "3x5 variant breaks poison 1,2 play normal no_square_bites"
            .parse()
            .unwrap();
        assert_eq!(
            config.to_string(),
            "3x5 variant breaks poison 1,2 play normal no_square_bites"
        );
        let cases = [
            (
                "6x7 play",
                "play needs a value, as in \"6x7 variant classic poison 0,0 play normal\"",
            ),
            (
                "6x7 play sideways",
                "expected play misere or play normal, got \"sideways\"",
            ),
            (
                "6x7 play normal play misere",
                "play is given twice; only poison may be repeated",
            ),
            (
                "6x7 no_square_bites no_square_bites",
                "no_square_bites is given twice; only poison may be repeated",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(
                text.parse::<Setup>().unwrap_err().to_string(),
                message,
                "{text:?}"
            );
        }
    }

    #[test]
    fn token_parsers_read_pairs_and_cells() {
        assert_eq!(parse_pair_x("5x6"), Ok((5, 6)));
        assert_eq!(parse_pair_x("15×4"), Ok((15, 4)));
        assert_eq!(parse_pair_x("2X3"), Ok((2, 3)));
        assert_eq!(parse_cell(" 2, 3"), Ok((2, 3)));
        assert_eq!(parse_cell("-1,0"), Ok((-1, 0)));
        assert_eq!(parse_pair_x("5"), Err(NotationError::Pair("5".into())));
        assert_eq!(parse_cell("a,b"), Err(NotationError::Cell("a,b".into())));
    }
}
