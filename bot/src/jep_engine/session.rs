//! [`Session`]: the engine's state between lines (its options, the last position, the bot of
//! the game and the search under way) and what it does with each command.

use super::output::Output;
use super::search::{Request, Running, Searcher};
use crate::jep::{Command, Go, OptionDecl, OptionKind, Reply, Rule, VERSION};
use jchomp_engine::classic::ClassicLibrary;
use jchomp_engine::player::Player;
use jchomp_engine::spec::BotSpec;
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Game, Variant};
use std::sync::Arc;

/// The seed of a new engine's bot (as `jchomp-bot play` seeds its bot by default).
pub(crate) const DEFAULT_SEED: u64 = 1;

/// Whether the engine goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Read the next line.
    Go,
    /// End the process.
    Quit,
}

/// The engine between lines.
pub(crate) struct Session {
    spec: BotSpec,
    seed: u64,
    library: Option<Arc<ClassicLibrary>>,
    /// The last valid position; `None` before one, or after a refused one.
    game: Option<Game>,
    /// The game's bot, built at the game's first `go` (`None` before, or while it searches).
    player: Option<Box<dyn Player>>,
    running: Option<Running>,
    /// The thread that runs the searches.
    searcher: Searcher,
    out: Output,
}

impl Session {
    /// An engine for `spec`, whose `level:5` plays classic games from `library`.
    pub(crate) fn new(spec: BotSpec, library: Option<Arc<ClassicLibrary>>, out: Output) -> Session {
        Session {
            spec,
            seed: DEFAULT_SEED,
            library,
            game: None,
            player: None,
            running: None,
            searcher: Searcher::new(out.clone()),
            out,
        }
    }

    /// Does what `command` asks.
    pub(crate) fn handle(&mut self, command: Command) -> Flow {
        match command {
            Command::Hello { version } if version != VERSION => {
                self.out
                    .send(&Reply::JepError("unsupported version".into()));
                return Flow::Quit;
            }
            Command::Hello { .. } => self.handshake(),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::IsReady => self.out.send(&Reply::ReadyOk),
            Command::NewGame => {
                self.settle();
                self.player = None;
                self.game = None;
            }
            Command::Position { config, moves } => self.position(&config, &moves),
            Command::Go(go) => self.go(go),
            Command::Stop => {
                if let Some(running) = &self.running {
                    running.stop();
                }
            }
            Command::Quit => return Flow::Quit,
        }
        Flow::Go
    }

    /// A `position` line that does not read: there is no valid position until the next one.
    pub(crate) fn forget_position(&mut self) {
        self.game = None;
    }

    /// Stops any search and waits for its answer (before the process ends).
    pub(crate) fn settle(&mut self) {
        if let Some(running) = self.running.take() {
            self.player = running.finish();
        }
    }

    /// The handshake's lines, after `jep 1`.
    fn handshake(&self) {
        let spin = OptionKind::Spin {
            default: DEFAULT_SEED as i64,
            min: i64::MIN,
            max: i64::MAX,
        };
        let bot = OptionKind::String {
            default: self.spec.to_string(),
        };
        let lines = [
            Reply::Name(format!("jchomp-bot {}", self.spec)),
            Reply::Author("The JChomp project".into()),
            Reply::Option(OptionDecl {
                name: "Seed".into(),
                kind: spin,
            }),
            Reply::Option(OptionDecl {
                name: "Bot".into(),
                kind: bot,
            }),
            Reply::Variants(Variant::ALL.to_vec()),
            Reply::Players(vec![2, 3, 4]),
            Reply::Rules(Rule::ALL.to_vec()),
            Reply::JepOk,
        ];
        for line in &lines {
            self.out.send(line);
        }
    }

    /// `setoption`: `Seed` or `Bot`; the next `go` builds a new bot with them.
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        self.settle();
        let value = value.unwrap_or("");
        match name {
            "Seed" => match parse_seed(value) {
                Some(seed) => self.seed = seed,
                None => {
                    return self.out.error(format_args!(
                        "Seed must be a 64-bit whole number, got {value:?}"
                    ));
                }
            },
            "Bot" => match BotSpec::parse(value) {
                Ok(spec) => self.spec = spec,
                Err(e) => return self.out.error(e),
            },
            _ => {
                return self
                    .out
                    .error(format_args!("no option {name:?} (Seed, Bot)"));
            }
        }
        self.player = None;
    }

    /// `position`: the configuration checked by the rules and every move replayed through them.
    fn position(&mut self, config: &ConfigJson, moves: &[Cell]) {
        self.game = match replay(config, moves) {
            Ok(game) => Some(game),
            Err(why) => {
                self.out.error(why);
                None
            }
        };
    }

    /// `go`: starts the search, unless a search runs, there is no position, or `go.seat` is not
    /// to move (then `info string error: …` and no `bestmove`).
    fn go(&mut self, go: Go) {
        if let Some(running) = self.running.take() {
            match running.try_finish() {
                Ok(player) => self.player = player,
                Err(running) => {
                    self.running = Some(running);
                    return self.out.error("a search is running: stop it first");
                }
            }
        }
        let Some(game) = &self.game else {
            return self.out.error("no valid position to search");
        };
        match game.to_move() {
            Some(seat) if seat == go.seat => {}
            Some(seat) => {
                return self.out.error(format_args!(
                    "seat {} is not to move: seat {seat} is",
                    go.seat
                ));
            }
            None => return self.out.error("the game is over"),
        }
        let (config, position) = (*game.config(), *game.position());
        let player = self
            .player
            .take()
            .unwrap_or_else(|| self.spec.build_with(self.seed, self.library.clone()));
        let request = Request {
            player,
            config,
            position,
            go,
            own_budget: self.spec.budget(),
        };
        self.running = Some(self.searcher.start(request));
    }
}

/// A seed as `setoption` gives it: any 64-bit number, unsigned or (two's complement) signed.
fn parse_seed(value: &str) -> Option<u64> {
    value
        .parse::<u64>()
        .ok()
        .or_else(|| value.parse::<i64>().ok().map(|s| s as u64))
}

/// The game a `position` describes, or why there is none.
fn replay(config: &ConfigJson, moves: &[Cell]) -> Result<Game, String> {
    let config = config
        .validate()
        .map_err(|e| format!("invalid config: {e}"))?;
    let mut game = Game::new(config);
    for (index, m) in moves.iter().enumerate() {
        let (row, col) = (i64::from(m.row), i64::from(m.col));
        game.select(row, col)
            .map_err(|r| format!("move {} ({m}): {}", index + 1, r.explain(&config, row, col)))?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_take_every_64_bit_number() {
        assert_eq!(parse_seed("7"), Some(7));
        assert_eq!(parse_seed("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_seed("-1"), Some(u64::MAX));
        assert_eq!(parse_seed("-9223372036854775808"), Some(1 << 63));
        assert_eq!(parse_seed("x"), None);
        assert_eq!(parse_seed(""), None);
    }

    #[test]
    fn moves_are_replayed_through_the_rules() {
        let config: ConfigJson =
            serde_json::from_str(r#"{"rows":4,"cols":5,"players":3,"eat":[1,2],"poison":[[0,0]]}"#)
                .unwrap();
        let game = replay(&config, &[Cell::new(2, 3), Cell::new(1, 1)]).unwrap();
        assert_eq!(game.to_move(), Some(2));
        let why = replay(&config, &[Cell::new(2, 3), Cell::new(2, 3)]).unwrap_err();
        assert!(why.starts_with("move 2 (2,3): "), "{why}");
        let bad: ConfigJson =
            serde_json::from_str(r#"{"rows":4,"cols":5,"players":5,"eat":[1,2],"poison":[[0,0]]}"#)
                .unwrap();
        assert!(
            replay(&bad, &[])
                .unwrap_err()
                .starts_with("invalid config: ")
        );
    }
}
