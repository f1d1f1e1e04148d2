//! [`EnginePlayer`]: an engine as a [`Player`], for every runner (a tournament's worker, the
//! bridge to a server). The engine is started for the first game and kept for the next ones
//! (its `Seed`, then `newgame` and `isready` between them); after a failure it is killed, and
//! started again for the next game. It is sent the whole game and the clocks on every move
//! ([`Player::play`]); without the game ([`Player::choose`]) it cannot answer.

use super::engine::{Engine, EngineError, EngineInfo};
use super::launch::Launch;
use super::process::Io;
use crate::jep::Go;
use jchomp_engine::player::Player;
use jchomp_engine::turn::{Fault, Turn};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Config, Position};
use std::time::Duration;

/// Everything needed to start and set up one engine.
#[derive(Clone, Debug)]
pub struct EngineSetup {
    /// How to start it.
    pub launch: Launch,
    /// `setoption` values, sent in order after the handshake.
    pub options: Vec<(String, String)>,
    /// How it is seen and logged.
    pub io: Io,
}

/// An engine seated as a player.
#[derive(Debug)]
pub struct EnginePlayer {
    setup: EngineSetup,
    seed: Option<u64>,
    engine: Option<Engine>,
    config: Option<ConfigJson>,
}

impl EnginePlayer {
    /// A player that starts `setup`'s engine for its first game; `seed` goes to the engine's
    /// `Seed` option, if it declares one, before every game.
    pub fn new(setup: EngineSetup, seed: Option<u64>) -> EnginePlayer {
        EnginePlayer {
            setup,
            seed,
            engine: None,
            config: None,
        }
    }

    /// The running engine's process id, if one runs.
    pub fn process_id(&self) -> Option<u32> {
        self.engine.as_ref().map(Engine::id)
    }

    /// The seed of the next games' `Seed` option (none: it is left alone).
    pub fn set_seed(&mut self, seed: Option<u64>) {
        self.seed = seed;
    }

    /// Starts the engine now if none runs (handshake, options, `isready`), and says what it
    /// said of itself.
    pub fn start(&mut self) -> Result<EngineInfo, Fault> {
        self.with_engine(|engine| Ok(engine.info().clone()))
    }

    /// Kills the engine, if one runs, so that the next game starts another: after a failure
    /// its runner judged (an illegal move, an answer past the clock).
    pub fn kill_engine(&mut self) {
        if let Some(engine) = self.engine.take() {
            engine.kill();
        }
    }

    /// The running engine, started (and its options set) if none runs.
    fn engine(&mut self) -> Result<&mut Engine, EngineError> {
        let engine = match self.engine.take() {
            Some(engine) => engine,
            None => {
                let mut engine = Engine::start(&self.setup.launch, self.setup.io.clone())?;
                for (name, value) in &self.setup.options {
                    engine.set_option(name, Some(value.clone()))?;
                }
                engine.ready()?;
                engine
            }
        };
        Ok(self.engine.insert(engine))
    }

    /// Runs `request` on the engine; a failure kills it (the next game starts another).
    fn with_engine<T>(
        &mut self,
        request: impl FnOnce(&mut Engine) -> Result<T, EngineError>,
    ) -> Result<T, Fault> {
        let done = self.engine().and_then(request);
        if done.is_err() {
            self.kill_engine();
        }
        done.map_err(Fault::from)
    }
}

/// Milliseconds, as `go` carries them.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The `go` of `turn`.
fn go_for(turn: &Turn<'_>) -> Go {
    let clocked = !turn.clocks.is_empty();
    Go {
        seat: turn.game.to_move().unwrap_or_default(),
        clocks: turn.clocks.iter().copied().map(ms).collect(),
        inc: clocked.then(|| ms(turn.inc)),
        movetime: turn.movetime.map(ms),
        ..Go::default()
    }
}

impl Player for EnginePlayer {
    /// An engine needs the whole game: it answers only [`Player::play`].
    fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
        None
    }

    fn start_game(&mut self, config: &Config) -> Result<(), Fault> {
        self.config = Some(ConfigJson::new(config, None));
        let seed = self.seed;
        self.with_engine(|engine| {
            if let Some(seed) = seed {
                engine.set_seed(seed)?;
            }
            engine.new_game()
        })
    }

    fn play(&mut self, turn: &Turn<'_>) -> Result<Option<Cell>, Fault> {
        let config = match &self.config {
            Some(c) => c.clone(),
            None => ConfigJson::new(turn.game.config(), None),
        };
        let moves: Vec<Cell> = turn.game.moves().iter().map(|m| m.cell).collect();
        let go = go_for(turn);
        self.with_engine(|engine| engine.search(&config, &moves, go, turn.limit))
            .map(Some)
    }

    fn last_lines(&self) -> Vec<String> {
        self.engine
            .as_ref()
            .map(Engine::last_lines)
            .unwrap_or_default()
    }
}
