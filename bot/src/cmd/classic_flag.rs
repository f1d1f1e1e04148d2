//! The `--classic-db FILE` flag of solve, analyze, play and tournament: where the classic
//! database written by `jchomp-bot classic-db build` is, and the database's answer for a
//! position of the standard classic game (or why search answers instead).

use jchomp_engine::classic::{
    ClassicDb, ClassicLibrary, FILE_NAME, Shape, Value, answers_for, shape_of,
};
use jchomp_rules::{Config, Position};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The environment variable naming the database when the flag is not given.
pub const ENV: &str = "JCHOMP_CLASSIC_DB";

/// Where the classic database is.
#[derive(Debug, clap::Args)]
pub struct ClassicDbFlag {
    /// The classic Chomp database (written by `jchomp-bot classic-db build`), which answers
    /// classic two-player games with the poison at 0,0. Default: the file named by
    /// JCHOMP_CLASSIC_DB, else classic-15x15.db in the current directory.
    #[arg(long = "classic-db", value_name = "FILE")]
    classic_db: Option<PathBuf>,
}

/// The database read for one position, and where it stands in it.
pub struct Found {
    /// The database.
    pub db: ClassicDb,
    /// The position as row lengths.
    pub shape: Shape,
    /// The line that says where the answer comes from.
    pub source: String,
}

impl ClassicDbFlag {
    /// The file: the flag, else the environment variable, else [`FILE_NAME`] here.
    pub fn path(&self) -> PathBuf {
        self.classic_db
            .clone()
            .or_else(|| {
                std::env::var_os(ENV)
                    .filter(|v| !v.is_empty())
                    .map(Into::into)
            })
            .unwrap_or_else(|| PathBuf::from(FILE_NAME))
    }

    /// The library bots play classic games from: it reads the file on first need and never
    /// builds one (a missing file leaves the bots searching).
    pub fn library(&self) -> Arc<ClassicLibrary> {
        ClassicLibrary::read_only(self.path())
    }

    /// The database and the position's shape in it, if the database answers for this game
    /// (classic, two players, poison at 0,0), its file can be read, and it holds the position;
    /// otherwise `Err` with the line that says why search answers instead. `None` for a game
    /// the database never answers for (no line to say then).
    pub fn find(&self, config: &Config, position: &Position) -> Option<Result<Found, String>> {
        if !answers_for(config) || position.to_move().is_none() {
            return None;
        }
        let path = self.path();
        let name = path.display().to_string();
        if !path.exists() {
            return Some(Err(format!(
                "from search: no classic database at {name} (jchomp-bot classic-db build writes one)"
            )));
        }
        let clock = Instant::now();
        let db = match ClassicDb::load(&path) {
            Ok(db) => db,
            Err(e) => return Some(Err(format!("from search: {e}"))),
        };
        let read_secs = clock.elapsed().as_secs_f64();
        let (rows, cols) = db.size();
        let found = shape_of(position.uneaten())
            .filter(|shape| db.lookup(shape).is_some())
            .map(|shape| Found {
                source: format!(
                    "from the database {name} ({rows}x{cols}, read in {read_secs:.3} s)"
                ),
                db,
                shape,
            });
        Some(found.ok_or_else(|| {
            format!("from search: the database {name} ({rows}x{cols}) does not hold this position")
        }))
    }
}

/// `win` or `loss`, as solve and analyze print a value.
pub fn name(value: Value) -> &'static str {
    match value {
        Value::Win => "win",
        Value::Loss => "loss",
    }
}
