//! The engines of a tournament: checked once before the first game (each must play the
//! tournament's variants and player count, and declare the options it is given), and each
//! seat's [`EnginePlayer`], started for its game, its standard error appended to
//! `engines/NAME.log` in the output directory.

use super::participant::{EngineSpec, Participant};
use super::settings::Settings;
use crate::jep_runner::{Engine, EnginePlayer, EngineSetup, Io};
use jchomp_engine::player::Player;
use std::path::{Path, PathBuf};

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

/// How each participant that is an engine is started (`None` for bots).
#[derive(Debug)]
pub struct Engines {
    setups: Vec<Option<EngineSetup>>,
}

impl Engines {
    /// The setups of `settings`' engines, logging into `out`'s engine folder (made here) and
    /// echoing their traffic if `debug`.
    pub fn new(
        settings: &Settings,
        out: Option<&Path>,
        debug: bool,
    ) -> Result<Engines, EngineRefused> {
        let logs = out.map(|d| d.join(LOG_DIR));
        let setups = settings
            .bots
            .iter()
            .map(|p| {
                p.engine()
                    .map(|e| setup(e, logs.as_deref(), debug))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        Ok(Engines { setups })
    }

    /// Starts every engine once and checks it plays what the tournament holds. An engine that
    /// cannot be started, or fails its handshake, is let through (it loses each game it
    /// fails, with the reason in the record); it is said on standard error.
    pub fn check(&self, settings: &Settings) -> Result<(), EngineRefused> {
        for (setup, participant) in self.setups.iter().zip(&settings.bots) {
            if let (Some(setup), Participant::Engine(spec)) = (setup, participant) {
                check_one(setup, spec, settings)?;
            }
        }
        Ok(())
    }

    /// Participant `index`'s player for one game, if it is an engine; `seed` goes to its
    /// `Seed` option.
    pub fn player(&self, index: usize, seed: u64) -> Option<Box<dyn Player>> {
        let setup = self.setups.get(index)?.clone()?;
        Some(Box::new(EnginePlayer::new(setup, Some(seed))))
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
    let stderr: Option<PathBuf> = match logs {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| refused(format!("{}: {e}", dir.display())))?;
            Some(dir.join(format!("{}.log", spec.name)))
        }
        None => None,
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
    for variant in settings.starts.variants() {
        if !info.plays(variant, settings.players) {
            return Err(refused(format!(
                "it does not play {variant} with {} players (it says: variants {}; players {})",
                settings.players,
                list(&info.variants),
                list(&info.players),
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

/// A list in words, or `none`.
fn list<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(T::to_string).collect::<Vec<_>>().join(" ")
}
