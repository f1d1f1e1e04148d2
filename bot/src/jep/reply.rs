//! An engine's lines to the runner: [`Reply`], with the handshake's option declarations and the
//! `info` lines of a search.

use super::line::{LineError, parse_cell, parse_number, rest_after, words};
use jchomp_rules::{Cell, Options, Play, Seat, Variant};
use std::fmt;

/// One line from an engine to the runner (docs/ENGINE.md, "Engine to runner").
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `id name NAME…`.
    Name(String),
    /// `id author AUTHOR…`.
    Author(String),
    /// `option name NAME type …`.
    Option(OptionDecl),
    /// `variants V…`.
    Variants(Vec<Variant>),
    /// `players P…`.
    Players(Vec<u8>),
    /// `rules R…`: the rule options it plays besides the default ones.
    Rules(Vec<Rule>),
    /// `jepok`: the handshake is over.
    JepOk,
    /// `jeperror …`: the engine does not speak the version asked for.
    JepError(String),
    /// `readyok`.
    ReadyOk,
    /// `info …`.
    Info(Info),
    /// `bestmove ROW,COL`.
    BestMove(Cell),
}

/// A rule option an engine may declare it plays (`rules R…`); one that declares none plays only
/// misère games without the ban on square bites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// `normal`: normal play, eating a marked cell wins.
    Normal,
    /// `no-square-bites`: no selection may eat a k×k square.
    NoSquareBites,
}

impl Rule {
    /// Every rule option, in the order they are listed.
    pub const ALL: [Rule; 2] = [Rule::Normal, Rule::NoSquareBites];

    /// Its word in the handshake.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Normal => "normal",
            Rule::NoSquareBites => "no-square-bites",
        }
    }

    /// The rule options a game under `options` needs of an engine.
    pub fn needed(options: Options) -> Vec<Rule> {
        let mut rules = Vec::new();
        if options.play == Play::Normal {
            rules.push(Rule::Normal);
        }
        if options.no_square_bites {
            rules.push(Rule::NoSquareBites);
        }
        rules
    }

    /// A game's rule options in words, to follow its variant: ` under rules normal` (nothing
    /// for the default ones).
    pub fn under(options: Options) -> String {
        let needed: Vec<&str> = Rule::needed(options).into_iter().map(Rule::name).collect();
        if needed.is_empty() {
            return String::new();
        }
        format!(" under rules {}", needed.join(" "))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An option an engine declares in its handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// Its name, one word.
    pub name: String,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// The type of an option, with its default and range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer from `min` to `max`.
    Spin {
        /// Its value until set.
        default: i64,
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// Its value until set.
        default: bool,
    },
    /// One of a list.
    Combo {
        /// Its value until set.
        default: String,
        /// Every allowed value.
        vars: Vec<String>,
    },
    /// Free text (`<empty>` on the line for none).
    String {
        /// Its value until set.
        default: String,
    },
    /// An action with no value.
    Button,
}

/// What an engine says about its search; every field optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// Plies searched in full.
    pub depth: Option<u32>,
    /// The deepest ply reached.
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes a second.
    pub nps: Option<u64>,
    /// Milliseconds since `go`.
    pub time: Option<u64>,
    /// The value of the position for the seat to move.
    pub score: Option<Score>,
    /// The principal variation.
    pub pv: Vec<Cell>,
    /// Free text (`info string …`, the rest of the line).
    pub string: Option<String>,
}

/// A search's value of the position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// The expected score of the seat to move, 0 (loses) to 1.
    Value(f64),
    /// Solved: `loser` loses after `plies` more plies.
    ProvenLoser {
        /// The seat that loses.
        loser: Seat,
        /// Plies to the end.
        plies: u32,
    },
    /// Solved: a tie after `plies` more plies.
    ProvenTie {
        /// Plies to the end.
        plies: u32,
    },
}

impl Reply {
    /// Reads one line. `Ok(None)` for an empty line or one whose first word is not a reply
    /// (which the runner ignores).
    pub fn parse(line: &str) -> Result<Option<Reply>, LineError> {
        let mut w = words(line);
        let Some(first) = w.next() else {
            return Ok(None);
        };
        Ok(Some(match first {
            "id" => match w.next() {
                Some("name") => Reply::Name(rest_after(line, 2).to_string()),
                Some("author") => Reply::Author(rest_after(line, 2).to_string()),
                _ => return Ok(None),
            },
            "option" => Reply::Option(parse_option(w)?),
            "variants" => Reply::Variants(
                w.map(|v| {
                    Variant::from_name(v).ok_or_else(|| LineError::Value {
                        word: "variants",
                        expected: "jchomp, classic or breaks",
                        got: v.to_string(),
                    })
                })
                .collect::<Result<_, _>>()?,
            ),
            "players" => Reply::Players(
                w.map(|p| parse_number("players", Some(p)))
                    .collect::<Result<_, _>>()?,
            ),
            "rules" => Reply::Rules(
                w.map(|r| {
                    Rule::ALL
                        .into_iter()
                        .find(|rule| rule.name() == r)
                        .ok_or_else(|| LineError::Value {
                            word: "rules",
                            expected: "normal or no-square-bites",
                            got: r.to_string(),
                        })
                })
                .collect::<Result<_, _>>()?,
            ),
            "jepok" => Reply::JepOk,
            "jeperror" => Reply::JepError(rest_after(line, 1).to_string()),
            "readyok" => Reply::ReadyOk,
            "info" => Reply::Info(parse_info(line)?),
            "bestmove" => {
                let m = w.next().ok_or(LineError::Missing("bestmove"))?;
                Reply::BestMove(parse_cell("bestmove", m)?)
            }
            _ => return Ok(None),
        }))
    }
}

/// The words after `option`.
fn parse_option<'a>(mut w: impl Iterator<Item = &'a str>) -> Result<OptionDecl, LineError> {
    let mut field = |key: &'static str| -> Result<&'a str, LineError> {
        match w.next() {
            Some(k) if k == key => w.next().ok_or(LineError::Missing(key)),
            Some(other) => Err(LineError::Unexpected(other.to_string())),
            None => Err(LineError::Missing(key)),
        }
    };
    let name = field("name")?.to_string();
    let kind = match field("type")? {
        "spin" => OptionKind::Spin {
            default: parse_number("default", Some(field("default")?))?,
            min: parse_number("min", Some(field("min")?))?,
            max: parse_number("max", Some(field("max")?))?,
        },
        "check" => OptionKind::Check {
            default: parse_number("default", Some(field("default")?))?,
        },
        "combo" => {
            let default = field("default")?.to_string();
            let mut vars = Vec::new();
            while let Ok(v) = field("var") {
                vars.push(v.to_string());
            }
            OptionKind::Combo { default, vars }
        }
        "string" => OptionKind::String {
            default: match field("default")? {
                "<empty>" => String::new(),
                d => d.to_string(),
            },
        },
        "button" => OptionKind::Button,
        other => {
            return Err(LineError::Value {
                word: "type",
                expected: "spin, check, combo, string or button",
                got: other.to_string(),
            });
        }
    };
    Ok(OptionDecl { name, kind })
}

/// An `info` line. `string` takes the rest of the line; an unknown word is skipped.
fn parse_info(line: &str) -> Result<Info, LineError> {
    let mut info = Info::default();
    let mut w = words(line).enumerate().skip(1).peekable();
    while let Some((i, word)) = w.next() {
        let mut next = || w.next().map(|(_, v)| v);
        match word {
            "depth" => info.depth = Some(parse_number("depth", next())?),
            "seldepth" => info.seldepth = Some(parse_number("seldepth", next())?),
            "nodes" => info.nodes = Some(parse_number("nodes", next())?),
            "nps" => info.nps = Some(parse_number("nps", next())?),
            "time" => info.time = Some(parse_number("time", next())?),
            "score" => info.score = Some(parse_score(&mut next)?),
            "pv" => {
                while let Some((_, m)) = w.peek() {
                    let Ok(cell) = parse_cell("pv", m) else { break };
                    info.pv.push(cell);
                    w.next();
                }
            }
            "string" => {
                info.string = Some(rest_after(line, i + 1).to_string());
                break;
            }
            _ => {}
        }
    }
    Ok(info)
}

/// The words after `score`.
fn parse_score<'a>(next: &mut impl FnMut() -> Option<&'a str>) -> Result<Score, LineError> {
    match next() {
        Some("value") => {
            let text = next().ok_or(LineError::Missing("value"))?;
            let v: f64 = text.parse().map_err(|_| LineError::Value {
                word: "value",
                expected: "a number from 0 to 1",
                got: text.to_string(),
            })?;
            Ok(Score::Value(v))
        }
        Some("proven") => {
            let loser = match next() {
                Some("loser") => Some(parse_number("loser", next())?),
                Some("tie") => None,
                Some(other) => return Err(LineError::Unexpected(other.to_string())),
                None => return Err(LineError::Missing("proven")),
            };
            match next() {
                Some("plies") => {}
                Some(other) => return Err(LineError::Unexpected(other.to_string())),
                None => return Err(LineError::Missing("plies")),
            }
            let plies = parse_number("plies", next())?;
            Ok(match loser {
                Some(loser) => Score::ProvenLoser { loser, plies },
                None => Score::ProvenTie { plies },
            })
        }
        Some(other) => Err(LineError::Unexpected(other.to_string())),
        None => Err(LineError::Missing("score")),
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Name(n) => write!(f, "id name {n}"),
            Reply::Author(a) => write!(f, "id author {a}"),
            Reply::Option(o) => o.fmt(f),
            Reply::Variants(vs) => {
                f.write_str("variants")?;
                vs.iter().try_for_each(|v| write!(f, " {v}"))
            }
            Reply::Players(ps) => {
                f.write_str("players")?;
                ps.iter().try_for_each(|p| write!(f, " {p}"))
            }
            Reply::Rules(rs) => {
                f.write_str("rules")?;
                rs.iter().try_for_each(|r| write!(f, " {r}"))
            }
            Reply::JepOk => f.write_str("jepok"),
            Reply::JepError(why) => write!(f, "jeperror {why}"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(info) => info.fmt(f),
            Reply::BestMove(m) => write!(f, "bestmove {m}"),
        }
    }
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type ", self.name)?;
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::Combo { default, vars } => {
                write!(f, "combo default {default}")?;
                vars.iter().try_for_each(|v| write!(f, " var {v}"))
            }
            OptionKind::String { default } if default.is_empty() => {
                f.write_str("string default <empty>")
            }
            OptionKind::String { default } => write!(f, "string default {default}"),
            OptionKind::Button => f.write_str("button"),
        }
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("time", self.time),
        ];
        for (word, n) in numbers {
            if let Some(n) = n {
                write!(f, " {word} {n}")?;
            }
        }
        match self.score {
            Some(Score::Value(v)) => write!(f, " score value {v}")?,
            Some(Score::ProvenLoser { loser, plies }) => {
                write!(f, " score proven loser {loser} plies {plies}")?
            }
            Some(Score::ProvenTie { plies }) => write!(f, " score proven tie plies {plies}")?,
            None => {}
        }
        if !self.pv.is_empty() {
            f.write_str(" pv")?;
            self.pv.iter().try_for_each(|m| write!(f, " {m}"))?;
        }
        match &self.string {
            Some(s) => write!(f, " string {s}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(r: Reply) {
        let line = r.to_string();
        assert_eq!(Reply::parse(&line), Ok(Some(r)), "{line}");
    }

    #[test]
    fn every_reply_reads_back_as_printed() {
        round_trip(Reply::Name("Example Engine 2".into()));
        round_trip(Reply::Author("The JChomp project".into()));
        for kind in [
            OptionKind::Spin {
                default: 4,
                min: 1,
                max: 12,
            },
            OptionKind::Check { default: true },
            OptionKind::Combo {
                default: "safe".into(),
                vars: vec!["safe".into(), "bold".into()],
            },
            OptionKind::String {
                default: String::new(),
            },
            OptionKind::String {
                default: "book.txt".into(),
            },
            OptionKind::Button,
        ] {
            round_trip(Reply::Option(OptionDecl {
                name: "Opt".into(),
                kind,
            }));
        }
        round_trip(Reply::Variants(vec![Variant::JChomp, Variant::Classic]));
        round_trip(Reply::Players(vec![2, 3, 4]));
        round_trip(Reply::Rules(Rule::ALL.to_vec()));
        round_trip(Reply::Rules(vec![Rule::NoSquareBites]));
        round_trip(Reply::JepOk);
        round_trip(Reply::JepError("unsupported version".into()));
        round_trip(Reply::ReadyOk);
        round_trip(Reply::BestMove(Cell::new(14, 0)));
        round_trip(Reply::Info(Info {
            depth: Some(4),
            seldepth: Some(7),
            nodes: Some(2315),
            nps: Some(1_000_000),
            time: Some(3),
            score: Some(Score::Value(0.62)),
            pv: vec![Cell::new(2, 3), Cell::new(1, 1)],
            string: Some("all  well".into()),
        }));
        for score in [
            Score::ProvenLoser { loser: 0, plies: 5 },
            Score::ProvenTie { plies: 2 },
        ] {
            round_trip(Reply::Info(Info {
                score: Some(score),
                ..Info::default()
            }));
        }
    }

    #[test]
    fn a_game_needs_the_rules_its_options_name() {
        assert!(Rule::needed(Options::default()).is_empty());
        let both = Options {
            play: Play::Normal,
            no_square_bites: true,
        };
        assert_eq!(Rule::needed(both), Rule::ALL);
        assert_eq!(Rule::under(both), " under rules normal no-square-bites");
        assert_eq!(Rule::under(Options::default()), "");
    }

    #[test]
    fn unknown_words_are_ignored_bad_moves_explained() {
        assert_eq!(Reply::parse("hello there"), Ok(None));
        assert_eq!(Reply::parse("id version 3"), Ok(None));
        assert_eq!(
            Reply::parse("info depth 3 currmove 1,1 nodes 9"),
            Ok(Some(Reply::Info(Info {
                depth: Some(3),
                nodes: Some(9),
                ..Info::default()
            })))
        );
        assert_eq!(
            Reply::parse("bestmove"),
            Err(LineError::Missing("bestmove"))
        );
        assert!(Reply::parse("bestmove e2e4").is_err());
        assert!(Reply::parse("variants chess").is_err());
        assert_eq!(
            Reply::parse("rules no-square-bites misere").map_err(|e| e.to_string()),
            Err(LineError::Value {
                word: "rules",
                expected: "normal or no-square-bites",
                got: "misere".into(),
            }
            .to_string())
        );
        assert!(Reply::parse("option name X type spin default a min 0 max 1").is_err());
    }
}
