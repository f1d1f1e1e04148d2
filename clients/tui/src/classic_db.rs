//! The classic database in the client: where its file is by default (`--classic-db`), and the
//! hints it gives in the standard classic game (two players, poison at 0,0) once it is ready.

use crate::hint::{Hints, Source, Verdict};
use jchomp_engine::classic::{
    Availability, ClassicDb, ClassicLibrary, FILE_NAME, MoveValue, Value,
};
use jchomp_engine::classic::{answers_for, moves_in};
use jchomp_protocol::rules::{Cell, Config, Position};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The database file when `--classic-db` is not given: `jchomp/classic-15x15.db` in the user's
/// data directory (`$XDG_DATA_HOME`, else `~/.local/share`), or `classic-15x15.db` in the
/// current directory when neither is known.
pub fn default_path() -> PathBuf {
    match crate::user_dirs::data_dir() {
        Some(dir) => dir.join(FILE_NAME),
        None => PathBuf::from(FILE_NAME),
    }
}

/// The library of the database at `path` (read there, or built and saved there on first need).
pub fn library(path: &Path) -> Arc<ClassicLibrary> {
    ClassicLibrary::new(Some(path.to_owned()))
}

/// What the database says about a position.
#[derive(Debug)]
pub enum Answer {
    /// Its exact verdict on every selection.
    Hints(Hints),
    /// The position is one it answers for, but it is not ready yet (being read or built).
    Preparing,
    /// It does not answer for this game, or failed: the engine must.
    NotApplicable,
}

/// The database's hints for `position`, asking the library for the database (which starts
/// reading or building it in the background the first time).
pub fn hints(library: &Arc<ClassicLibrary>, config: &Config, position: &Position) -> Answer {
    if !answers_for(config) || position.to_move().is_none() {
        return Answer::NotApplicable;
    }
    if matches!(library.availability(), Availability::Idle) {
        // The file's directory may not exist yet; the library writes the file after building.
        if let Some(dir) = library.path().and_then(Path::parent) {
            let _ = std::fs::create_dir_all(dir);
        }
    }
    match library.get() {
        Some(db) => match from_db(&db, config, position) {
            Some(hints) => Answer::Hints(hints),
            None => Answer::NotApplicable,
        },
        None => match library.availability() {
            Availability::Failed(_) => Answer::NotApplicable,
            _ => Answer::Preparing,
        },
    }
}

/// Every selection of a classic `position` with the database's value; `None` if the database
/// does not answer for the game or does not hold the position.
pub fn from_db(db: &ClassicDb, config: &Config, position: &Position) -> Option<Hints> {
    let moves = moves_in(db, config, position)?;
    Some(Hints {
        selections: moves.into_iter().map(verdict_of).collect(),
        source: Source::Database,
    })
}

/// The database's value of one selection as a verdict.
pub fn verdict_of(m: MoveValue) -> (Cell, Verdict) {
    let plies = u32::from(m.solved.plies);
    let verdict = match m.solved.value {
        Value::Win => Verdict::Win(plies),
        Value::Loss => Verdict::Loss(plies),
    };
    (Cell::new(m.row, m.col), verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::{HintJob, analyse_within};
    use jchomp_engine::classic::shape_of;
    use jchomp_testkit::board;

    /// The standard 6×6 classic game after a few moves.
    fn position(config: &Config) -> Position {
        let mut p = Position::start(config);
        for (r, c) in [(4, 5), (2, 4), (5, 1)] {
            p.select(config, r, c).unwrap();
        }
        p
    }

    #[test]
    fn classic_hints_are_the_databases_analysis_and_agree_with_the_engine() {
        let library = ClassicLibrary::with_box(None, 6, 6);
        let db = library.wait().unwrap();
        let config = board("6x6 variant classic poison 0,0");
        let pos = position(&config);
        let job = HintJob {
            key: 1,
            config,
            position: pos,
            limit: None,
            library: Some(library),
        };
        let hints = job.run().unwrap();
        assert_eq!(hints.source, Source::Database);
        let shape = shape_of(pos.uneaten()).unwrap();
        let analysis = db.analyze(&shape).unwrap();
        assert_eq!(hints.selections.len(), analysis.len());
        for ((cell, verdict), m) in hints.selections.iter().zip(analysis) {
            assert_eq!((cell.row, cell.col), (m.row, m.col));
            let plies = u32::from(m.solved.plies);
            match m.solved.value {
                Value::Win => assert_eq!(*verdict, Verdict::Win(plies)),
                Value::Loss => assert_eq!(*verdict, Verdict::Loss(plies)),
            }
        }
        assert_eq!(hints.verdict(Cell::new(0, 0)), Some(Verdict::Loss(1)));
        // Every selection of the position is annotated, and the engine proves the same values.
        assert_eq!(hints.selections.len() as u32, pos.selections().count());
        let mut engine = analyse_within(&config, &pos, None).unwrap().selections;
        let mut from_db = hints.selections.clone();
        engine.sort_by_key(|(c, _)| c.index());
        from_db.sort_by_key(|(c, _)| c.index());
        assert_eq!(engine, from_db);
    }

    #[test]
    fn until_the_database_is_ready_the_engine_answers_and_says_so() {
        let library = ClassicLibrary::with_box(None, 6, 6);
        let config = board("6x6 variant classic poison 0,0");
        let job = HintJob {
            key: 1,
            config,
            position: position(&config),
            limit: None,
            library: Some(library.clone()),
        };
        let hints = job.run().unwrap();
        assert_eq!(hints.source, Source::EngineWhileDatabasePrepares);
        assert_eq!(hints.verdict(Cell::new(0, 0)), Some(Verdict::Loss(1)));
        library.wait().unwrap();
        assert_eq!(job.run().unwrap().source, Source::Database);
        // Other games never ask it.
        let other = board("6x6 variant classic poison 0,0 poison 5,5");
        let job = HintJob {
            config: other,
            position: Position::start(&other),
            ..job
        };
        assert_eq!(job.run().unwrap().source, Source::Engine);
    }

    #[test]
    fn the_default_file_is_in_a_data_directory() {
        let path = default_path();
        assert!(path.ends_with(FILE_NAME), "{}", path.display());
    }
}
