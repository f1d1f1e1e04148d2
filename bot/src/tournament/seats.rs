//! A game's seats in a tournament: [`Seated`], a bot built for the game or an engine its worker
//! keeps; lent to the arena as players, then handed back to the worker ([`give_back`]), an
//! engine that failed killed first so that its next game starts it again.

use super::engines::{Entrant, Kept};
use crate::jep_runner::EnginePlayer;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_engine::player::Player;
use jchomp_rules::Seat;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// One participant in its seat for one game.
pub enum Seated {
    /// A built-in bot, built for this game.
    Bot(Box<dyn Player>),
    /// An engine the worker keeps from game to game.
    Engine {
        /// The participant it is.
        participant: usize,
        /// The engine.
        player: Box<EnginePlayer>,
    },
}

impl Seated {
    /// Participant `index`, seated as `entrant`, its choices seeded with `seed` (an engine's
    /// `Seed` option) and its search stopped by `stop`; an engine is taken from `kept`.
    pub fn new(
        index: usize,
        entrant: &Entrant,
        seed: u64,
        stop: &Arc<AtomicBool>,
        classic: Option<&Arc<ClassicLibrary>>,
        kept: &mut Kept,
    ) -> Seated {
        match entrant {
            Entrant::Bot(spec) => {
                let mut bot = spec.build_with(seed, classic.cloned());
                bot.set_stop(Arc::clone(stop));
                Seated::Bot(bot)
            }
            Entrant::Engine(setup) => {
                let mut player = Box::new(kept.take(index, setup));
                player.set_seed(Some(seed));
                Seated::Engine {
                    participant: index,
                    player,
                }
            }
        }
    }

    /// The player the arena plays this seat with, for one game.
    pub fn lend(&mut self) -> Box<dyn Player + '_> {
        match self {
            Seated::Bot(bot) => Box::new(bot.as_mut()),
            Seated::Engine { player, .. } => Box::new(player.as_mut()),
        }
    }

    /// The bot, or `None` for an engine (engines play in-process only).
    pub fn into_bot(self) -> Option<Box<dyn Player>> {
        match self {
            Seated::Bot(bot) => Some(bot),
            Seated::Engine { .. } => None,
        }
    }
}

/// Hands a game's engines back to the worker; the engine in seat `failed`, if any, is killed
/// first (an engine whose own failure the runner saw is already gone).
pub fn give_back(seats: Vec<Seated>, failed: Option<Seat>, kept: &mut Kept) {
    for (seat, seated) in seats.into_iter().enumerate() {
        if let Seated::Engine {
            participant,
            mut player,
        } = seated
        {
            if failed.is_some_and(|f| usize::from(f) == seat) {
                player.kill_engine();
            }
            kept.put_back(participant, *player);
        }
    }
}
