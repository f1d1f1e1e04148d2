//! The database as a player's oracle: a classic position of the standard game (two players, the
//! one poison at the top-left) read as a [`Shape`], and [`PerfectPlayer`], which plays its
//! database's optimal selection (fastest win, longest defence) and its fallback player
//! everywhere else, or while the database is not ready.

use super::db::{ClassicDb, MoveValue};
use super::library::ClassicLibrary;
use super::shape::{MAX_SIDE, Shape};
use crate::player::{Player, SearchInfo};
use crate::search::Budget;
use jchomp_rules::{Bits, Cell, Config, Position, Variant};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Whether the database answers for games of this configuration: classic, misère play without
/// the ban on square bites, two players, one poison cell at (0, 0).
pub fn answers_for(config: &Config) -> bool {
    config.variant() == Variant::Classic
        && config.options().is_default()
        && config.players() == 2
        && config.poison() == [Cell::new(0, 0)]
}

/// The uneaten cells of a classic position as row lengths; `None` if they are not a down-set
/// (a position no classic game reaches).
pub fn shape_of(uneaten: Bits) -> Option<Shape> {
    let mut rows = [0u8; MAX_SIDE];
    for (r, len) in rows.iter_mut().enumerate() {
        let mut c = 0;
        while c < MAX_SIDE && uneaten.contains(Bits::index(r as u8, c as u8)) {
            c += 1;
        }
        *len = c as u8;
    }
    let shape = Shape::from_rows(&rows).ok()?;
    (shape.cells() == uneaten.count() as usize).then_some(shape)
}

/// The shape of `position` if the database answers for it: a game in play of the standard
/// classic kind.
fn answerable(config: &Config, position: &Position) -> Option<Shape> {
    if !answers_for(config) || position.to_move().is_none() {
        return None;
    }
    shape_of(position.uneaten())
}

/// The database's optimal selection in `position`, if the database answers for it.
fn best_cell(db: &ClassicDb, config: &Config, position: &Position) -> Option<Cell> {
    let best = db.best_move(&answerable(config, position)?)?;
    Some(Cell::new(best.row, best.col))
}

/// Every selection of `position` with the database's value, row by row, if the database
/// answers for it and holds it.
pub fn moves_in(db: &ClassicDb, config: &Config, position: &Position) -> Option<Vec<MoveValue>> {
    db.analyze(&answerable(config, position)?)
}

/// Plays perfectly from the classic database where it answers, and as `fallback` elsewhere.
pub(crate) struct PerfectPlayer {
    library: Arc<ClassicLibrary>,
    fallback: Box<dyn Player>,
    /// Whether the last choice came from the database.
    answered: bool,
}

impl std::fmt::Debug for PerfectPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerfectPlayer")
            .field("library", &self.library)
            .finish_non_exhaustive()
    }
}

impl PerfectPlayer {
    /// A player that asks `library` first and `fallback` otherwise.
    pub fn new(library: Arc<ClassicLibrary>, fallback: Box<dyn Player>) -> PerfectPlayer {
        PerfectPlayer {
            library,
            fallback,
            answered: false,
        }
    }
}

impl Player for PerfectPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        if answers_for(config)
            && let Some(db) = self.library.get()
            && let Some(cell) = best_cell(&db, config, position)
        {
            self.answered = true;
            return Some(cell);
        }
        self.answered = false;
        self.fallback.choose(config, position)
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.fallback.set_stop(stop);
    }

    fn set_budget(&mut self, budget: Budget) -> bool {
        self.fallback.set_budget(budget)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        (!self.answered)
            .then(|| self.fallback.last_search())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RandomPlayer;
    use crate::classic::Value;

    fn config(text: &str) -> Config {
        text.parse().unwrap()
    }

    #[test]
    fn shapes_of_classic_positions() {
        let c = config("5x6 variant classic poison 0,0");
        let mut p = Position::start(&c);
        assert_eq!(shape_of(p.uneaten()).unwrap().rows(), &[6, 6, 6, 6, 6]);
        p.select(&c, 2, 3).unwrap();
        assert_eq!(shape_of(p.uneaten()).unwrap().rows(), &[6, 6, 3, 3, 3]);
        assert!(answers_for(&c));
        assert!(!answers_for(&config("5x6 variant classic poison 1,1")));
        assert!(!answers_for(&config(
            "5x6 variant classic poison 0,0 players 3"
        )));
        assert!(!answers_for(&config("5x6 eat 1x1 poison 0,0")));
        // The database holds misère values with square bites allowed, nothing else.
        for options in ["play normal", "no_square_bites"] {
            let notation = format!("5x6 variant classic poison 0,0 {options}");
            assert!(!answers_for(&config(&notation)), "{notation}");
        }
        let hole = Bits::single(Bits::index(0, 0)) | Bits::single(Bits::index(0, 2));
        assert_eq!(shape_of(hole), None);
    }

    #[test]
    fn the_perfect_player_wins_every_won_position_and_falls_back_elsewhere() {
        let library = ClassicLibrary::with_box(None, 6, 6);
        let db = library.wait().unwrap();
        let c = config("6x6 variant classic poison 0,0");
        for seed in 0..20u64 {
            // The perfect player moves first from a won start and must win against anything.
            let mut players: [Box<dyn Player>; 2] = [
                Box::new(PerfectPlayer::new(
                    library.clone(),
                    Box::new(RandomPlayer::new(seed)),
                )),
                Box::new(RandomPlayer::new(seed + 100)),
            ];
            let mut p = Position::start(&c);
            assert_eq!(
                db.lookup(&shape_of(p.uneaten()).unwrap()).unwrap().value,
                Value::Win
            );
            while let Some(seat) = p.to_move() {
                let cell = players[usize::from(seat)].choose(&c, &p).unwrap();
                p.select(&c, cell.row.into(), cell.col.into()).unwrap();
            }
            assert_eq!(p.result().and_then(|r| r.loser()), Some(1), "seed {seed}");
        }
        // Elsewhere the fallback plays: a legal move on a board the database does not cover.
        let other = config("6x6 variant classic poison 2,2");
        let mut player = PerfectPlayer::new(library, Box::new(RandomPlayer::new(1)));
        let start = Position::start(&other);
        let cell = player.choose(&other, &start).unwrap();
        assert!(
            start
                .check(&other, cell.row.into(), cell.col.into())
                .is_ok()
        );
    }
}
