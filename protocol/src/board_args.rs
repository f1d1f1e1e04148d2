//! Board flags shared by every command-line tool (`--size 5x6 --eat 1x2 --poison 0,0 --players 2`,
//! `--variant classic`) and the parsers behind them.

use crate::rules::{Config, ConfigError, Options, Play, Setup, Variant};

/// The board configuration flags, as perft, solve, analyze, the bot client, tournaments and the
/// `jchomp` CLI take them.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct BoardArgs {
    /// Board size as ROWSxCOLS: each 4–15 in JChomp; each 1–15 in classic Chomp, at least 2
    /// cells (the standard classic bar is 3x5).
    #[arg(long, value_name = "ROWSxCOLS", default_value = "6x7", value_parser = parse_pair_x)]
    pub size: (i64, i64),
    /// The game: jchomp (rectangles of the eat size), classic (a cell and everything below
    /// and right of it; no eat size) or breaks (a side broken off along a grid line; one
    /// poison cell, no eat size).
    #[arg(long, value_name = "VARIANT", default_value = "jchomp", value_parser = parse_variant)]
    pub variant: Variant,
    /// Eat size as ROWSxCOLS (each 1–3; JChomp only). Default: 1x1.
    #[arg(long, value_name = "ROWSxCOLS", value_parser = parse_pair_x)]
    pub eat: Option<(i64, i64)>,
    /// A poison cell as ROW,COL (0-based, row 0 at the top); repeat for up to 4 cells.
    /// Default: the top-left cell 0,0.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_cell)]
    pub poison: Vec<(i64, i64)>,
    /// Number of players (2–4).
    #[arg(long, default_value_t = 2)]
    pub players: i64,
    /// misere (the eater of poison loses) or normal (the eater of a marked cell wins).
    #[arg(long, value_name = "PLAY", default_value = "misere", value_parser = parse_play)]
    pub play: Play,
    /// Ban bites of a k×k square of cells (1, 4, 9 …).
    #[arg(long)]
    pub no_square_bites: bool,
}

impl BoardArgs {
    /// The unvalidated setup these flags describe: JChomp eats 1x1 unless `--eat` says
    /// otherwise; an `--eat` given with `--variant classic` is kept, for [`Config::new`] to refuse.
    pub fn setup(&self) -> Setup {
        let poison = if self.poison.is_empty() {
            vec![[0, 0]]
        } else {
            self.poison.iter().map(|&(r, c)| [r, c]).collect()
        };
        Setup {
            rows: self.size.0,
            cols: self.size.1,
            players: self.players,
            variant: self.variant,
            eat: match (self.variant, self.eat) {
                (_, Some((rows, cols))) => Some([rows, cols]),
                (Variant::JChomp, None) => Some([1, 1]),
                (Variant::Classic | Variant::Breaks, None) => None,
            },
            poison,
            options: Options {
                play: self.play,
                no_square_bites: self.no_square_bites,
            },
        }
    }

    /// The validated configuration.
    pub fn config(&self) -> Result<Config, BoardError> {
        Config::new(&self.setup()).map_err(|error| BoardError {
            error,
            size: self.size,
            eat: self.eat,
        })
    }
}

/// A board the flags describe that is not a valid game, explained in the flags' own terms
/// (`--eat must be 1–3 rows by 1–3 columns, got 4x1`), not the JSON fields' (`eat[0]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardError {
    /// What the rules refuse.
    pub error: ConfigError,
    size: (i64, i64),
    eat: Option<(i64, i64)>,
}

impl std::fmt::Display for BoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::rules::Field;
        let (rows, cols) = self.size;
        match &self.error {
            ConfigError::OutOfRange {
                field: Field::Rows | Field::Cols,
                min,
                max,
                ..
            } => write!(
                f,
                "--size must be {min}–{max} rows by {min}–{max} columns, got {rows}x{cols}"
            ),
            ConfigError::OutOfRange {
                field: Field::EatRows | Field::EatCols | Field::Eat,
                min,
                max,
                ..
            } => {
                let (er, ec) = self.eat.unwrap_or((1, 1));
                write!(
                    f,
                    "--eat must be {min}–{max} rows by {min}–{max} columns, got {er}x{ec}"
                )
            }
            ConfigError::OutOfRange { min, max, got, .. } => {
                write!(f, "--players must be {min}–{max}, got {got}")
            }
            ConfigError::TooFewCells { .. } => write!(
                f,
                "--size {rows}x{cols} is the poison alone; give at least 2 cells, such as 1x2 or 2x1"
            ),
            ConfigError::EatMissing => {
                f.write_str("JChomp needs --eat, 1–3 rows by 1–3 columns (such as 1x2)")
            }
            ConfigError::EatInBreaks => {
                f.write_str("--variant breaks takes no --eat (a break eats a whole side); leave it out")
            }
            ConfigError::SquareEat { size } => write!(
                f,
                "--no-square-bites forbids the square --eat {size}x{size}; give a size such as 1x2"
            ),
            ConfigError::BreaksPoison { got } => write!(
                f,
                "--variant breaks needs --poison given exactly once, got {got}"
            ),
            ConfigError::EatInClassic => {
                f.write_str("--variant classic takes no --eat (a cell eats everything below and right of it); leave it out")
            }
            ConfigError::PoisonCount { min, max, got } => {
                write!(f, "--poison must be given {min}–{max} times, got {got}")
            }
            ConfigError::PoisonOutside {
                row,
                col,
                rows,
                cols,
                ..
            } => write!(
                f,
                "--poison {row},{col} lies outside the {rows}×{cols} board (rows 0–{}, columns 0–{})",
                rows - 1,
                cols - 1
            ),
            ConfigError::PoisonRepeated { row, col, .. } => {
                write!(f, "--poison {row},{col} is given twice; each poison cell once")
            }
        }
    }
}

impl std::error::Error for BoardError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The flags' value parsers are the rules' notation tokens, so a flag and a board written on
/// one line (`6x7 eat 1x2 poison 0,0`) share one syntax and one set of messages.
pub use crate::rules::notation::{parse_cell, parse_pair_x, parse_variant};

/// Parses a play convention's name, `misere` or `normal` (case does not matter).
pub fn parse_play(s: &str) -> Result<Play, String> {
    Play::from_name(s.trim()).ok_or_else(|| format!("expected misere or normal, got {s:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(flags: &str) -> String {
        let args: Vec<&str> = flags.split_whitespace().collect();
        parse(&args).unwrap().config().unwrap_err().to_string()
    }

    #[test]
    fn board_errors_speak_of_the_flags_as_typed() {
        assert_eq!(
            words("--eat 4x1"),
            "--eat must be 1–3 rows by 1–3 columns, got 4x1"
        );
        assert_eq!(
            words("--size 3x20"),
            "--size must be 4–15 rows by 4–15 columns, got 3x20"
        );
        assert_eq!(
            words("--size 6x7 --poison 99,99"),
            "--poison 99,99 lies outside the 6×7 board (rows 0–5, columns 0–6)"
        );
        assert_eq!(words("--players 7"), "--players must be 2–4, got 7");
        // Classic Chomp takes bars from 1–15 each way, but not the poison alone.
        assert_eq!(
            words("--variant classic --size 16x3"),
            "--size must be 1–15 rows by 1–15 columns, got 16x3"
        );
        assert_eq!(
            words("--variant classic --size 1x1"),
            "--size 1x1 is the poison alone; give at least 2 cells, such as 1x2 or 2x1"
        );
        assert_eq!(
            words("--poison 1,1 --poison 1,1"),
            "--poison 1,1 is given twice; each poison cell once"
        );
        assert!(
            words("--variant classic --eat 1x2").starts_with("--variant classic takes no --eat")
        );
        for flags in ["--eat 4x1", "--size 3x20", "--poison 99,99"] {
            let w = words(flags);
            assert!(!w.contains('[') && !w.contains("eat[0]"), "{w}");
        }
    }

    #[test]
    fn parses_sizes_and_cells() {
        assert_eq!(parse_pair_x("5x6"), Ok((5, 6)));
        assert_eq!(parse_pair_x("15×4"), Ok((15, 4)));
        assert_eq!(parse_cell(" 2, 3"), Ok((2, 3)));
        assert!(parse_pair_x("5").unwrap_err().to_string().contains("AxB"));
        assert!(
            parse_cell("a,b")
                .unwrap_err()
                .to_string()
                .contains("ROW,COL")
        );
    }

    #[test]
    fn the_option_flags_reach_the_setup_and_their_errors_name_the_flags() {
        let args = parse(&[
            "--size",
            "3x5",
            "--variant",
            "breaks",
            "--poison",
            "1,2",
            "--play",
            "normal",
            "--no-square-bites",
        ])
        .unwrap();
        let config = args.config().unwrap();
        assert_eq!(
            config.to_string(),
            "3x5 variant breaks poison 1,2 play normal no_square_bites"
        );
        assert_eq!(
            words("--size 5x5 --eat 2x2 --no-square-bites"),
            "--no-square-bites forbids the square --eat 2x2; give a size such as 1x2"
        );
        assert_eq!(
            words("--size 5x5 --variant breaks --poison 0,0 --poison 1,1"),
            "--variant breaks needs --poison given exactly once, got 2"
        );
        assert_eq!(
            words("--size 5x5 --variant breaks --eat 1x2"),
            "--variant breaks takes no --eat (a break eats a whole side); leave it out"
        );
        assert!(parse(&["--play", "sideways"]).is_err());
    }

    #[test]
    fn setup_defaults_poison_to_top_left_and_validates() {
        let args = BoardArgs {
            size: (5, 6),
            variant: Variant::JChomp,
            eat: Some((1, 2)),
            poison: vec![],
            players: 3,
            play: Play::Misere,
            no_square_bites: false,
        };
        assert_eq!(args.setup().poison, vec![[0, 0]]);
        assert!(args.config().is_ok());
        let bad = BoardArgs {
            size: (3, 6),
            ..args
        };
        assert_eq!(
            bad.config().unwrap_err().to_string(),
            "--size must be 4–15 rows by 4–15 columns, got 3x6"
        );
    }

    /// The flags as a tool's command line gives them.
    fn parse(args: &[&str]) -> Result<BoardArgs, clap::Error> {
        #[derive(clap::Parser)]
        struct Tool {
            #[command(flatten)]
            board: BoardArgs,
        }
        let argv = std::iter::once("tool").chain(args.iter().copied());
        <Tool as clap::Parser>::try_parse_from(argv).map(|t| t.board)
    }

    #[test]
    fn variant_flag_defaults_to_jchomp_and_classic_refuses_eat() {
        let plain = parse(&["--size", "5x6"]).unwrap();
        assert_eq!(plain.variant, Variant::JChomp);
        assert_eq!(plain.setup().eat, Some([1, 1]));
        assert_eq!(
            plain.config().unwrap().to_string(),
            "5x6 eat 1x1 poison 0,0"
        );
        let classic = parse(&["--size", "5x6", "--variant", "classic", "--players", "4"]).unwrap();
        let config = classic.config().unwrap();
        assert_eq!(
            config.to_string(),
            "5x6 variant classic poison 0,0 players 4"
        );
        for (size, notation) in [
            ("3x5", "3x5 variant classic poison 0,0"),
            ("1x2", "1x2 variant classic poison 0,0"),
            ("15x1", "15x1 variant classic poison 0,0"),
        ] {
            let small = parse(&["--variant", "classic", "--size", size]).unwrap();
            assert_eq!(small.config().unwrap().to_string(), notation);
        }
        let jchomp = parse(&["--size", "3x5"]).unwrap();
        assert_eq!(
            jchomp.config().unwrap_err().to_string(),
            "--size must be 4–15 rows by 4–15 columns, got 3x5"
        );
        let both = parse(&["--variant", "classic", "--eat", "1x2"]).unwrap();
        assert_eq!(
            both.config().unwrap_err().to_string(),
            "--variant classic takes no --eat (a cell eats everything below and right of it); \
             leave it out"
        );
        let err = parse(&["--variant", "misere"]).unwrap_err().to_string();
        assert!(
            err.contains("expected a variant, jchomp, classic or breaks"),
            "{err}"
        );
    }
}
