//! [`Settings`]: everything that defines a tournament (bots, format, start configurations, seed,
//! length, early stop, venue). Stored as `tournament.json` so that `--resume` replays it exactly.

use super::participant::Participant;
use super::schedule::{Schedule, Seating};
use super::sprt::{SprtError, SprtParams};
use super::starts::{Starts, StartsError};
use super::time_control::TimeSetting;
use jchomp_rules::PLAYERS;
use serde::{Deserialize, Serialize};

/// Games played when neither `--games` nor `--rounds` is given (and no SPRT runs).
pub const DEFAULT_GAMES: u64 = 100;

/// Why settings do not make a tournament.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Seats per game out of range.
    #[error("players must be {lo}–{hi}, got {got}")]
    Players {
        /// Fewest seats.
        lo: u8,
        /// Most seats.
        hi: u8,
        /// Seats asked for.
        got: u8,
    },
    /// Fewer than two bots.
    #[error("a tournament needs at least two bots (--bot SPEC, repeated)")]
    TooFewBots,
    /// Fewer bots than seats.
    #[error("{players}-player games need at least {players} bots, got {bots}")]
    BotsForSeats {
        /// Seats per game.
        players: usize,
        /// Bots given.
        bots: usize,
    },
    /// An SPRT with other than two bots in two-player games.
    #[error("--sprt needs exactly two bots and two-player games")]
    SprtShape,
    /// The SPRT's parameters are refused.
    #[error("{0}")]
    Sprt(SprtError),
    /// Neither a length nor an SPRT to end the tournament.
    #[error("a tournament without --sprt needs --games or --rounds")]
    NoLength,
    /// A length of zero.
    #[error("--games and --rounds must be at least 1")]
    ZeroLength,
    /// The start configurations are refused.
    #[error("{0}")]
    Starts(StartsError),
    /// Two participants share a name.
    #[error("two participants are named {0:?}; give each engine its own name=")]
    SameName(String),
    /// Engines without a time control.
    #[error("a tournament with engines needs a time control: --tc BASE+INC or --st TIME")]
    EnginesUntimed,
    /// Bots in a tournament read from a server, whose entrants are its own.
    #[error("a tournament read from a server takes its entrants from there, and no bots")]
    ServerBots,
    /// Engines or a time control on a server.
    #[error(
        "engines and time controls (--engine, --tc, --st) play in-process only, not with --server"
    )]
    OnServer,
}

/// How long a tournament runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Length {
    /// About this many games in total, rounded up to whole seat rotations.
    Games(u64),
    /// This many rounds: every group of bots plays every seat rotation once per round.
    Rounds(u64),
    /// Until the SPRT decides.
    UntilDecided,
}

/// A tournament's definition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The participants (bots and engines), the first the reference for Elo (and the tested
    /// one of an SPRT).
    pub bots: Vec<Participant>,
    /// Gauntlet (the first bot against the others) instead of round robin.
    pub gauntlet: bool,
    /// Seats per game (2–4).
    pub players: u8,
    /// The seat orders each group plays per start configuration (settings stored before this
    /// existed used rotations).
    #[serde(default)]
    pub seating: Seating,
    /// Where start configurations come from.
    pub starts: Starts,
    /// Seed of configuration draws and of the bots' own random choices.
    pub seed: u64,
    /// How many games.
    pub length: Length,
    /// Early stop for two bots.
    pub sprt: Option<SprtParams>,
    /// Extra time a time-limited bot may take beyond its budget before it loses, in ms.
    pub margin_ms: u64,
    /// The server to play on (`ws://…`), or `None` to play in-process.
    pub server: Option<String>,
    /// The time control of every game, if any (absent in settings written before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeSetting>,
}

impl Settings {
    /// Checks the settings hang together; the message says what is wrong. A tournament read
    /// from a server names its entrants there and plays nothing here, so it has no bots.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.starts.server_run().is_some() {
            if !self.bots.is_empty() {
                return Err(SettingsError::ServerBots);
            }
            return self
                .starts
                .validate(self.players)
                .map_err(SettingsError::Starts);
        }
        let (lo, hi) = PLAYERS;
        if !(lo..=hi).contains(&self.players) {
            return Err(SettingsError::Players {
                lo,
                hi,
                got: self.players,
            });
        }
        let p = self.players as usize;
        if self.bots.len() < 2 {
            return Err(SettingsError::TooFewBots);
        }
        if self.bots.len() < p {
            return Err(SettingsError::BotsForSeats {
                players: p,
                bots: self.bots.len(),
            });
        }
        if let Some(sprt) = &self.sprt {
            if self.bots.len() != 2 || self.players != 2 {
                return Err(SettingsError::SprtShape);
            }
            sprt.validate().map_err(SettingsError::Sprt)?;
        } else if self.length == Length::UntilDecided {
            return Err(SettingsError::NoLength);
        }
        match self.length {
            Length::Games(0) | Length::Rounds(0) => return Err(SettingsError::ZeroLength),
            _ => {}
        }
        self.starts
            .validate(self.players)
            .map_err(SettingsError::Starts)?;
        self.validate_engines()
    }

    /// Engines need a time control, play in-process, and every participant a name of its own.
    fn validate_engines(&self) -> Result<(), SettingsError> {
        let engines = self.bots.iter().any(|p| p.engine().is_some());
        if engines && self.time_control.is_none() {
            return Err(SettingsError::EnginesUntimed);
        }
        if (engines || self.time_control.is_some()) && self.server.is_some() {
            return Err(SettingsError::OnServer);
        }
        let names = self.names();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(SettingsError::SameName(name.clone()));
            }
        }
        Ok(())
    }

    /// The pairing schedule these settings describe (a server's tournament: its games as the
    /// server played them).
    pub fn schedule(&self) -> Schedule {
        match self.starts.server_run() {
            Some(run) => run.schedule(self.players),
            None => {
                Schedule::with_seating(self.bots.len(), self.players, self.gauntlet, self.seating)
            }
        }
    }

    /// Total games to play, or `None` when only the SPRT ends the tournament.
    pub(crate) fn total_games(&self) -> Option<u64> {
        if let Some(run) = self.starts.server_run() {
            return Some(run.games());
        }
        let schedule = self.schedule();
        let p = schedule.orders_per_group();
        match self.length {
            Length::Games(n) => Some(n.div_ceil(p).saturating_mul(p)),
            Length::Rounds(n) => Some(n.saturating_mul(schedule.games_per_round())),
            Length::UntilDecided => None,
        }
    }

    /// The name of each participant in tables and records: a bot's spec, with `#2`, `#3`, …
    /// appended when the same spec appears more than once; an engine's `name`; the entrants of
    /// a tournament read from a server.
    pub fn names(&self) -> Vec<String> {
        if let Some(run) = self.starts.server_run() {
            return run.entrants().to_vec();
        }
        let mut names = Vec::with_capacity(self.bots.len());
        for (i, participant) in self.bots.iter().enumerate() {
            let spec = match participant {
                Participant::Bot(spec) => spec,
                Participant::Engine(e) => {
                    names.push(e.name.clone());
                    continue;
                }
            };
            let earlier = self.bots[..i].iter().filter(|s| *s == participant).count();
            if earlier == 0 {
                names.push(spec.to_string());
            } else {
                names.push(format!("{spec}#{}", earlier + 1));
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::participant::EngineSpec;
    use jchomp_engine::spec::BotSpec;

    fn settings(bots: &[&str]) -> Settings {
        Settings {
            bots: bots
                .iter()
                .map(|b| Participant::Bot(BotSpec::parse(b).unwrap()))
                .collect(),
            gauntlet: false,
            players: 2,
            seating: Seating::Rotations,
            starts: Starts::default(),
            seed: 1,
            length: Length::Games(10),
            sprt: None,
            margin_ms: 100,
            server: None,
            time_control: None,
        }
    }

    #[test]
    fn names_are_unique_and_totals_whole_rotations() {
        let mut s = settings(&["random", "greedy", "random"]);
        assert_eq!(s.names(), vec!["random", "greedy", "random#2"]);
        s.players = 3;
        s.length = Length::Games(10);
        assert_eq!(s.total_games(), Some(12));
        s.length = Length::Rounds(2);
        // One group of three bots, three rotations each round.
        assert_eq!(s.total_games(), Some(6));
        s.validate().unwrap();
        // Every seat order: six games per group and round.
        s.seating = Seating::All;
        assert_eq!(s.total_games(), Some(12));
        s.length = Length::Games(10);
        assert_eq!(s.total_games(), Some(12));
        s.length = Length::Games(13);
        assert_eq!(s.total_games(), Some(18));
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut s = settings(&["random"]);
        let refusal = |s: &Settings| s.validate().unwrap_err().to_string();
        assert!(refusal(&s).contains("at least two bots"));
        s = settings(&["random", "greedy"]);
        s.players = 3;
        assert!(refusal(&s).contains("at least 3 bots"));
        s.players = 2;
        s.length = Length::UntilDecided;
        assert!(refusal(&s).contains("--games or --rounds"));
        s.length = Length::Games(0);
        assert!(s.validate().is_err());
        s.length = Length::Games(2);
        let engine = |name: &str| {
            Participant::Engine(EngineSpec::parse(&format!("name={name},cmd=./e")).unwrap())
        };
        s.bots.push(engine("e"));
        assert!(refusal(&s).contains("--tc"));
        s.time_control = Some(TimeSetting::MoveTime { ms: 100 });
        s.validate().unwrap();
        s.bots.push(engine("greedy"));
        assert!(refusal(&s).contains("named \"greedy\""));
        s.bots.pop();
        s.server = Some("ws://127.0.0.1:1/ws".into());
        assert!(refusal(&s).contains("in-process only"));
    }

    #[test]
    fn settings_round_trip_through_json() {
        let s = settings(&["random", "search:depth=3", "level:2"]);
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains("\"search:depth=3\""));
        let back: Settings = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        // Settings written before seatings existed read as rotations.
        let old = text.replace("\"seating\":\"rotations\",", "");
        assert!(!old.contains("seating"));
        let back: Settings = serde_json::from_str(&old).unwrap();
        assert_eq!(back, s);
    }
}
