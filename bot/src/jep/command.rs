//! The runner's lines to an engine: [`Command`], read from a line and printed as one.

use super::line::{LineError, parse_cell, parse_number, rest_after, words};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Seat};
use std::fmt;

/// One line from the runner to an engine (docs/ENGINE.md, "Runner to engine").
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `jep VERSION`: the first line.
    Hello {
        /// The protocol version the runner speaks.
        version: u32,
    },
    /// `setoption name NAME [value VALUE]`.
    SetOption {
        /// The option's name, as the engine declared it.
        name: String,
        /// Its new value; `None` for a button.
        value: Option<String>,
    },
    /// `isready`.
    IsReady,
    /// `newgame`.
    NewGame,
    /// `position config JSON [moves M…]`: the whole game so far.
    Position {
        /// The game's configuration, as in a record (not yet validated).
        config: ConfigJson,
        /// Every move so far, in order.
        moves: Vec<Cell>,
    },
    /// `go …`: choose a move.
    Go(Go),
    /// `stop`.
    Stop,
    /// `quit`.
    Quit,
}

/// The limits of one `go`: the seat to move and every optional limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// The seat to move.
    pub seat: Seat,
    /// Milliseconds left on every seat's clock, seat 0 first; empty without a clock.
    pub clocks: Vec<u64>,
    /// Milliseconds added to a seat's clock after each of its moves.
    pub inc: Option<u64>,
    /// Milliseconds for this move, exactly.
    pub movetime: Option<u64>,
    /// A budget in the engine's nodes.
    pub nodes: Option<u64>,
    /// A budget in plies.
    pub depth: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
}

impl Command {
    /// Reads one line. `Ok(None)` for an empty line or one whose first word is not a command
    /// (which an engine ignores).
    pub fn parse(line: &str) -> Result<Option<Command>, LineError> {
        let mut w = words(line);
        let Some(first) = w.next() else {
            return Ok(None);
        };
        Ok(Some(match first {
            "jep" => Command::Hello {
                version: parse_number("jep", w.next())?,
            },
            "setoption" => parse_setoption(line)?,
            "isready" => Command::IsReady,
            "newgame" => Command::NewGame,
            "position" => parse_position(line)?,
            "go" => Command::Go(parse_go(w)?),
            "stop" => Command::Stop,
            "quit" => Command::Quit,
            _ => return Ok(None),
        }))
    }
}

/// `setoption name NAME [value VALUE…]`; the value is the rest of the line.
fn parse_setoption(line: &str) -> Result<Command, LineError> {
    let mut w = words(line).skip(1);
    match w.next() {
        Some("name") => {}
        Some(other) => return Err(LineError::Unexpected(other.to_string())),
        None => return Err(LineError::Missing("name")),
    }
    let name = w.next().ok_or(LineError::Missing("name"))?.to_string();
    let value = match w.next() {
        None => None,
        Some("value") => Some(rest_after(line, 4).to_string()),
        Some(other) => return Err(LineError::Unexpected(other.to_string())),
    };
    Ok(Command::SetOption { name, value })
}

/// `position config JSON [moves M…]`. The JSON is read as JSON, so blanks inside it are read
/// too, though a runner never writes any.
fn parse_position(line: &str) -> Result<Command, LineError> {
    match words(line).nth(1) {
        Some("config") => {}
        Some(other) => return Err(LineError::Unexpected(other.to_string())),
        None => return Err(LineError::Missing("config")),
    }
    let json = rest_after(line, 2);
    let mut stream = serde_json::Deserializer::from_str(json).into_iter::<ConfigJson>();
    let config = match stream.next() {
        Some(Ok(config)) => config,
        Some(Err(e)) => return Err(LineError::Config(e.to_string())),
        None => return Err(LineError::Missing("config")),
    };
    let mut w = words(&json[stream.byte_offset()..]);
    let moves = match w.next() {
        None => Vec::new(),
        Some("moves") => w
            .map(|m| parse_cell("moves", m))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(LineError::Unexpected(other.to_string())),
    };
    Ok(Command::Position { config, moves })
}

/// The words after `go`.
fn parse_go<'a>(w: impl Iterator<Item = &'a str>) -> Result<Go, LineError> {
    let mut w = w.peekable();
    let mut go = Go::default();
    let mut seat = None;
    while let Some(word) = w.next() {
        match word {
            "seat" => seat = Some(parse_number("seat", w.next())?),
            "clocks" => {
                while let Some(n) = w.peek().and_then(|p| p.parse().ok()) {
                    go.clocks.push(n);
                    w.next();
                }
                if go.clocks.is_empty() {
                    return Err(LineError::Missing("clocks"));
                }
            }
            "inc" => go.inc = Some(parse_number("inc", w.next())?),
            "movetime" => go.movetime = Some(parse_number("movetime", w.next())?),
            "nodes" => go.nodes = Some(parse_number("nodes", w.next())?),
            "depth" => go.depth = Some(parse_number("depth", w.next())?),
            "infinite" => go.infinite = true,
            other => return Err(LineError::Unexpected(other.to_string())),
        }
    }
    go.seat = seat.ok_or(LineError::Missing("seat"))?;
    Ok(go)
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Hello { version } => write!(f, "jep {version}"),
            Command::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                match value {
                    Some(v) => write!(f, " value {v}"),
                    None => Ok(()),
                }
            }
            Command::IsReady => f.write_str("isready"),
            Command::NewGame => f.write_str("newgame"),
            Command::Position { config, moves } => {
                let json = serde_json::to_string(config).map_err(|_| fmt::Error)?;
                write!(f, "position config {json}")?;
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Command::Go(go) => go.fmt(f),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "go seat {}", self.seat)?;
        if !self.clocks.is_empty() {
            f.write_str(" clocks")?;
            for c in &self.clocks {
                write!(f, " {c}")?;
            }
        }
        let numbers = [
            ("inc", self.inc),
            ("movetime", self.movetime),
            ("nodes", self.nodes),
            ("depth", self.depth.map(u64::from)),
        ];
        for (word, n) in numbers {
            if let Some(n) = n {
                write!(f, " {word} {n}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ConfigJson {
        serde_json::from_str(r#"{"rows":4,"cols":5,"players":3,"eat":[1,2],"poison":[[0,0]]}"#)
            .unwrap()
    }

    fn round_trip(c: Command) {
        let line = c.to_string();
        assert_eq!(Command::parse(&line), Ok(Some(c)), "{line}");
    }

    #[test]
    fn every_command_reads_back_as_printed() {
        round_trip(Command::Hello { version: 1 });
        round_trip(Command::SetOption {
            name: "Depth".into(),
            value: Some("6".into()),
        });
        round_trip(Command::SetOption {
            name: "Book".into(),
            value: Some("my book.txt".into()),
        });
        round_trip(Command::SetOption {
            name: "Clear".into(),
            value: None,
        });
        round_trip(Command::IsReady);
        round_trip(Command::NewGame);
        round_trip(Command::Position {
            config: config(),
            moves: vec![],
        });
        round_trip(Command::Position {
            config: config(),
            moves: vec![Cell::new(2, 3), Cell::new(1, 1)],
        });
        round_trip(Command::Go(Go {
            seat: 2,
            clocks: vec![9985, 9990, 10000],
            inc: Some(100),
            movetime: Some(50),
            nodes: Some(1000),
            depth: Some(4),
            infinite: true,
        }));
        round_trip(Command::Go(Go::default()));
        round_trip(Command::Stop);
        round_trip(Command::Quit);
    }

    #[test]
    fn the_documented_lines_read() {
        let p = r#"position config {"rows":4,"cols":5,"players":3,"eat":[1,2],"poison":[[0,0]]} moves 2,3 1,1"#;
        let Ok(Some(Command::Position { config: c, moves })) = Command::parse(p) else {
            panic!("{p}")
        };
        assert_eq!(
            (c, moves),
            (config(), vec![Cell::new(2, 3), Cell::new(1, 1)])
        );
        let go = Command::parse("  go seat 2 clocks 9985 9990 10000 inc 100\r");
        let Ok(Some(Command::Go(go))) = go else {
            panic!()
        };
        assert_eq!((go.seat, go.clocks.len(), go.inc), (2, 3, Some(100)));
        let spaced =
            r#"position config { "rows": 4, "cols":5,"players":2,"eat":[1,1],"poison":[[0,0]] }"#;
        assert!(matches!(
            Command::parse(spaced),
            Ok(Some(Command::Position { .. }))
        ));
    }

    #[test]
    fn unknown_and_empty_lines_are_ignored_bad_ones_explained() {
        assert_eq!(Command::parse(""), Ok(None));
        assert_eq!(Command::parse("ucinewgame"), Ok(None));
        assert_eq!(Command::parse("go"), Err(LineError::Missing("seat")));
        assert!(Command::parse("go seat x").is_err());
        assert!(Command::parse("go seat 0 clocks").is_err());
        assert!(Command::parse("go seat 0 wtime 5").is_err());
        assert!(Command::parse("position config {\"rows\":4").is_err());
        assert!(Command::parse("position config {} moves").is_err());
        assert!(Command::parse("position fen x").is_err());
        assert!(Command::parse("jep one").is_err());
    }
}
