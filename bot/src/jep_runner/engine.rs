//! [`Engine`]: a started engine that has completed its handshake, and the protocol's requests
//! to it (docs/ENGINE.md): options, `isready`, `newgame`, and a search from `position` and `go`
//! to `bestmove`, each within its time. Every failure is an [`EngineError`] naming the
//! [`Failure`] it costs, with the engine's last lines.

use super::launch::Launch;
use super::process::{Allowance, Io, Process, ReadError};
use crate::jep::{Command, Go, LineError, OptionDecl, OptionKind, PROTOCOL, Reply, Rule, VERSION};
use jchomp_engine::turn::{Failure, Fault};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Options, Variant};
use std::time::Duration;

/// How long an engine has to complete its handshake.
pub const HANDSHAKE_TIME: Duration = Duration::from_secs(5);
/// How long an engine has to answer `isready` (docs/ENGINE.md).
pub const READY_TIME: Duration = Duration::from_secs(5);

/// What an engine said of itself in its handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineInfo {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// Its options, in the order declared.
    pub options: Vec<OptionDecl>,
    /// The variants it plays.
    pub variants: Vec<Variant>,
    /// The player counts it plays.
    pub players: Vec<u8>,
    /// The rule options it plays besides the default ones.
    pub rules: Vec<Rule>,
}

impl EngineInfo {
    /// The option declared under `name`.
    pub fn option(&self, name: &str) -> Option<&OptionDecl> {
        self.options.iter().find(|o| o.name == name)
    }

    /// Whether it plays `variant` under `options` with `players` seats.
    pub fn plays(&self, variant: Variant, options: Options, players: u8) -> bool {
        self.variants.contains(&variant)
            && self.players.contains(&players)
            && Rule::needed(options).iter().all(|r| self.rules.contains(r))
    }

    /// What it said it plays, in words: `variants …; rules …; players …`.
    pub fn plays_words(&self) -> String {
        format!(
            "variants {}; rules {}; players {}",
            words(&self.variants),
            words(&self.rules),
            words(&self.players)
        )
    }
}

/// Items in words, or `none`.
fn words<T: ToString>(items: &[T]) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why an engine failed: the [`Failure`] it costs, in words, with its last lines.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{failure}: {why}", failure = .failure.name())]
pub struct EngineError {
    /// The failure it costs.
    pub failure: Failure,
    /// What happened.
    pub why: String,
    /// The last lines both ways (see [`Process::last_lines`]).
    pub lines: Vec<String>,
}

impl From<EngineError> for Fault {
    /// The fault of a player whose engine failed: its last lines, after the reason.
    fn from(e: EngineError) -> Fault {
        let mut lines = vec![format!("{}: {}", e.failure.name(), e.why)];
        lines.extend(e.lines);
        Fault {
            failure: e.failure,
            lines,
        }
    }
}

/// A running engine past its handshake.
#[derive(Debug)]
pub struct Engine {
    process: Process,
    info: EngineInfo,
}

impl Engine {
    /// Starts `launch` and completes the handshake within [`HANDSHAKE_TIME`].
    pub fn start(launch: &Launch, io: Io) -> Result<Engine, EngineError> {
        let process = Process::spawn(launch, io).map_err(|e| EngineError {
            failure: Failure::Start,
            why: format!("cannot start {launch}: {e}"),
            lines: Vec::new(),
        })?;
        let mut engine = Engine {
            process,
            info: EngineInfo::default(),
        };
        engine.handshake()?;
        Ok(engine)
    }

    /// What the engine said of itself.
    pub fn info(&self) -> &EngineInfo {
        &self.info
    }

    /// The last lines both ways, oldest first (see [`Process::last_lines`]).
    pub fn last_lines(&self) -> Vec<String> {
        self.process.last_lines()
    }

    /// The engine's process id.
    pub fn id(&self) -> u32 {
        self.process.id()
    }

    /// The error `failure` with `why`, and the last lines.
    fn error(&self, failure: Failure, why: impl Into<String>) -> EngineError {
        EngineError {
            failure,
            why: why.into(),
            lines: self.process.last_lines(),
        }
    }

    /// The error of a line not had; `timeout` is the failure a missed deadline costs.
    fn read_error(&self, e: ReadError, timeout: Failure, waiting: &str) -> EngineError {
        match e {
            ReadError::Timeout => self.error(timeout, format!("no {waiting} in time")),
            ReadError::Flood(why) => self.error(Failure::Flood, why),
            ReadError::Exited(why) => self.error(Failure::Crash, why),
        }
    }

    fn send(&mut self, command: &Command) -> Result<(), EngineError> {
        let line = command.to_string();
        self.process
            .send(&line)
            .map_err(|e| self.read_error(e, Failure::Crash, "write"))
    }

    /// Reads lines within `allowance` until `pick` takes one (it is given each line and its
    /// reading); the lines it passes over are ignored.
    fn wait_for<T>(
        &mut self,
        allowance: &mut Allowance,
        timeout: Failure,
        waiting: &str,
        mut pick: impl FnMut(
            &mut Self,
            &str,
            Result<Option<Reply>, LineError>,
        ) -> Option<Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        loop {
            let line = self
                .process
                .read(allowance)
                .map_err(|e| self.read_error(e, timeout, waiting))?;
            if let Some(answer) = pick(self, &line, Reply::parse(&line)) {
                return answer;
            }
        }
    }

    fn handshake(&mut self) -> Result<(), EngineError> {
        self.send(&Command::Hello { version: VERSION })?;
        let mut allowance = Allowance::new(Some(HANDSHAKE_TIME));
        self.wait_for(
            &mut allowance,
            Failure::Handshake,
            "jepok",
            |e, _, reply| {
                match reply {
                    Ok(Some(Reply::Name(n))) => e.info.name = Some(n),
                    Ok(Some(Reply::Author(a))) => e.info.author = Some(a),
                    Ok(Some(Reply::Option(o))) => e.info.options.push(o),
                    Ok(Some(Reply::Variants(v))) => e.info.variants.extend(v),
                    Ok(Some(Reply::Players(p))) => e.info.players.extend(p),
                    Ok(Some(Reply::Rules(r))) => e.info.rules.extend(r),
                    Ok(Some(Reply::JepOk)) => return Some(Ok(())),
                    Ok(Some(Reply::JepError(why))) => {
                        let why = format!("the engine does not speak {PROTOCOL} {VERSION}: {why}");
                        return Some(Err(e.error(Failure::Handshake, why)));
                    }
                    _ => {}
                }
                None
            },
        )
    }

    /// `setoption`: sets a declared option (`None` presses a button).
    pub fn set_option(&mut self, name: &str, value: Option<String>) -> Result<(), EngineError> {
        self.send(&Command::SetOption {
            name: name.to_string(),
            value,
        })
    }

    /// Sets the `Seed` option, if the engine declares one as a spin, to `seed` brought into its
    /// range: an engine whose range is every 64-bit integer gets the seed's own 64 bits (as a
    /// signed number: `-1` is 2^64 − 1), so it can seed its bots exactly as the tournament does
    /// in-process; a narrower range gets `min + seed mod (max − min + 1)`.
    pub fn set_seed(&mut self, seed: u64) -> Result<(), EngineError> {
        let Some(OptionKind::Spin { min, max, .. }) =
            self.info.option("Seed").map(|o| o.kind.clone())
        else {
            return Ok(());
        };
        self.set_option("Seed", Some(seed_in_range(seed, min, max).to_string()))
    }

    /// `isready`, answered by `readyok` within [`READY_TIME`] (or the engine is `hung`).
    pub fn ready(&mut self) -> Result<(), EngineError> {
        self.send(&Command::IsReady)?;
        let mut allowance = Allowance::new(Some(READY_TIME));
        self.wait_for(&mut allowance, Failure::Hung, "readyok", |_, _, reply| {
            matches!(reply, Ok(Some(Reply::ReadyOk))).then_some(Ok(()))
        })
    }

    /// `newgame`, then `isready`.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send(&Command::NewGame)?;
        self.ready()
    }

    /// One search: `position` with `config` and `moves`, `go`, and the `bestmove`, which must
    /// come within `limit` (`overtime` otherwise; the engine is then sent `stop`).
    pub fn search(
        &mut self,
        config: &ConfigJson,
        moves: &[Cell],
        go: Go,
        limit: Option<Duration>,
    ) -> Result<Cell, EngineError> {
        self.send(&Command::Position {
            config: config.clone(),
            moves: moves.to_vec(),
        })?;
        self.send(&Command::Go(go))?;
        let mut allowance = Allowance::new(limit);
        let found = self.wait_for(
            &mut allowance,
            Failure::Overtime,
            "bestmove",
            |e, line, reply| match reply {
                Ok(Some(Reply::BestMove(cell))) => Some(Ok(cell)),
                Err(why) if line.split_whitespace().next() == Some("bestmove") => {
                    Some(Err(e.error(Failure::Malformed, format!("bestmove: {why}"))))
                }
                _ => None,
            },
        );
        if matches!(&found, Err(e) if e.failure == Failure::Overtime) {
            let _ = self.process.send(&Command::Stop.to_string());
        }
        found
    }

    /// Ends the engine: `quit`, a second's grace, then a kill. Returns whether it was killed.
    pub fn quit(self) -> bool {
        self.process.quit()
    }

    /// Kills the engine at once (after a failure).
    pub fn kill(self) {
        self.process.kill();
    }
}

/// `seed` as a value of a spin option from `min` to `max` (see [`Engine::set_seed`]).
fn seed_in_range(seed: u64, min: i64, max: i64) -> i128 {
    let span = (i128::from(max) - i128::from(min) + 1).max(1);
    if span == 1_i128 << 64 {
        // The seed's own bits, read as a signed number.
        return i128::from(i64::from_ne_bytes(seed.to_ne_bytes()));
    }
    i128::from(min) + i128::from(seed) % span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_range_seed_keeps_its_bits_a_narrow_one_wraps() {
        assert_eq!(seed_in_range(7, i64::MIN, i64::MAX), 7);
        assert_eq!(seed_in_range(u64::MAX, i64::MIN, i64::MAX), -1);
        assert_eq!(
            seed_in_range(1 << 63, i64::MIN, i64::MAX),
            i128::from(i64::MIN)
        );
        assert_eq!(seed_in_range(12, 0, 9), 2);
        assert_eq!(seed_in_range(5, -3, -3), -3);
    }
}
