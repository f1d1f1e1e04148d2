//! The participants of a tournament as they are seated ([`Entrant`]: a bot's spec, or how an
//! engine is started, its standard error appended to `engines/NAME.log` in the output
//! directory); the engines checked once before the first game (each must play the
//! tournament's variants and player count, and declare the options it is given); and the
//! engines each worker keeps from game to game ([`Kept`]), quit when the worker ends.

use super::participant::{EngineSpec, Participant};
use super::settings::Settings;
use crate::jep::Rule;
use crate::jep_runner::{Engine, EnginePlayer, EngineSetup, Io, Stderr};
use jchomp_engine::spec::BotSpec;
use std::path::Path;

/// The folder of the engines' logs in an output directory.
pub const LOG_DIR: &str = "engines";

/// Why an engine cannot take part.
#[derive(Debug, thiserror::Error)]
#[error("engine {name}: {why}")]
pub struct EngineRefused {
    /// The engine's name.
    pub name: String,
    /// Why, in words.
    pub why: String,
}

/// One participant as it is seated in a game.
#[derive(Clone, Debug)]
pub enum Entrant {
    /// A built-in bot, built for each game.
    Bot(BotSpec),
    /// An external engine, kept by each worker from game to game.
    Engine(EngineSetup),
}

/// Every participant of a tournament as it is seated, in the order of the settings.
#[derive(Debug)]
pub struct Engines {
    entrants: Vec<Entrant>,
}

impl Engines {
    /// The entrants of `settings`, its engines logging into `out`'s engine folder (made here)
    /// and echoing their traffic if `debug`.
    pub fn new(
        settings: &Settings,
        out: Option<&Path>,
        debug: bool,
    ) -> Result<Engines, EngineRefused> {
        let logs = out.map(|d| d.join(LOG_DIR));
        let entrants = settings
            .bots
            .iter()
            .map(|p| match p {
                Participant::Bot(spec) => Ok(Entrant::Bot(*spec)),
                Participant::Engine(e) => setup(e, logs.as_deref(), debug).map(Entrant::Engine),
            })
            .collect::<Result<_, _>>()?;
        Ok(Engines { entrants })
    }

    /// Starts every engine once and checks it plays what the tournament holds. An engine that
    /// cannot be started, or fails its handshake, is let through (it loses each game it
    /// fails, with the reason in the record); it is said on standard error.
    pub fn check(&self, settings: &Settings) -> Result<(), EngineRefused> {
        for (entrant, participant) in self.entrants.iter().zip(&settings.bots) {
            if let (Entrant::Engine(setup), Participant::Engine(spec)) = (entrant, participant) {
                check_one(setup, spec, settings)?;
            }
        }
        Ok(())
    }

    /// Participant `index` (a participant of the settings these entrants were made from).
    pub fn entrant(&self, index: usize) -> &Entrant {
        &self.entrants[index]
    }
}

/// The engines one worker keeps from game to game, one per engine participant (a participant
/// holds at most one seat of a game: names are unique). Dropping it quits them.
#[derive(Debug, Default)]
pub struct Kept {
    players: Vec<Option<EnginePlayer>>,
}

impl Kept {
    /// Participant `index`'s engine, taken out for one game: the one kept, or a new one (its
    /// process started by its first game).
    pub fn take(&mut self, index: usize, setup: &EngineSetup) -> EnginePlayer {
        self.players
            .get_mut(index)
            .and_then(Option::take)
            .unwrap_or_else(|| EnginePlayer::new(setup.clone(), None))
    }

    /// Keeps participant `index`'s engine for the worker's next games.
    pub fn put_back(&mut self, index: usize, player: EnginePlayer) {
        if self.players.len() <= index {
            self.players.resize_with(index + 1, || None);
        }
        self.players[index] = Some(player);
    }
}

/// The setup of `spec`; its log in `logs`, made if missing.
fn setup(
    spec: &EngineSpec,
    logs: Option<&Path>,
    debug: bool,
) -> Result<EngineSetup, EngineRefused> {
    let refused = |why: String| EngineRefused {
        name: spec.name.clone(),
        why,
    };
    let launch = spec.launch().map_err(|e| refused(e.to_string()))?;
    let stderr = match logs {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| refused(format!("{}: {e}", dir.display())))?;
            Stderr::Append(dir.join(format!("{}.log", spec.name)))
        }
        None => Stderr::Discard,
    };
    Ok(EngineSetup {
        launch,
        options: spec.options.clone(),
        io: Io {
            label: spec.name.clone(),
            stderr,
            debug,
        },
    })
}

/// Starts one engine and checks its handshake against the tournament.
fn check_one(
    setup: &EngineSetup,
    spec: &EngineSpec,
    settings: &Settings,
) -> Result<(), EngineRefused> {
    let refused = |why: String| EngineRefused {
        name: spec.name.clone(),
        why,
    };
    let engine = match Engine::start(&setup.launch, setup.io.clone()) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!(
                "jchomp-bot: engine {}: {e}; it loses every game it cannot start",
                spec.name
            );
            return Ok(());
        }
    };
    let info = engine.info().clone();
    engine.quit();
    for (variant, options) in settings.starts.variants() {
        if !info.plays(variant, options, settings.players) {
            return Err(refused(format!(
                "it does not play {variant}{} with {} players (it says: {})",
                Rule::under(options),
                settings.players,
                info.plays_words(),
            )));
        }
    }
    for (name, _) in &spec.options {
        if info.option(name).is_none() {
            let declared: Vec<&str> = info.options.iter().map(|o| o.name.as_str()).collect();
            return Err(refused(format!(
                "it declares no option {name:?} (it declares: {})",
                declared.join(", ")
            )));
        }
    }
    Ok(())
}
