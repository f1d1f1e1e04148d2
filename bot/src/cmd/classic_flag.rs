//! The `--classic-db FILE` flag of solve, analyze, play and tournament: where the classic
//! database written by `jchomp-bot classic-db build` is, and the database's answer for a
//! position of the standard classic game (built for the position's own box when the file
//! cannot answer).

use jchomp_engine::classic::{
    ClassicDb, ClassicLibrary, FILE_NAME, Ranker, Shape, Value, answers_for, shape_of,
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
    /// (classic, two players, poison at 0,0): the file's when it can be read and holds the
    /// position, else one of the position's own box built now (an instant for small boxes, a
    /// few seconds for 15×15 in a release build) — the line in `Found::source` says which and
    /// why. `None` for a game the database never answers for.
    pub fn find(&self, config: &Config, position: &Position) -> Option<Found> {
        if !answers_for(config) || position.to_move().is_none() {
            return None;
        }
        let shape = shape_of(position.uneaten())?;
        let path = self.path();
        let name = path.display().to_string();
        let why = if path.exists() {
            let clock = Instant::now();
            match ClassicDb::load(&path) {
                Ok(db) if db.lookup(&shape).is_some() => {
                    let read_secs = clock.elapsed().as_secs_f64();
                    let (rows, cols) = db.size();
                    return Some(Found {
                        source: format!(
                            "from the database {name} ({rows}x{cols}, read in {read_secs:.3} s)"
                        ),
                        db,
                        shape,
                    });
                }
                Ok(db) => format!(
                    "the database {name} ({}x{}) does not hold this position",
                    db.size().0,
                    db.size().1
                ),
                Err(e) => e.to_string(),
            }
        } else {
            format!("no classic database at {name}; jchomp-bot classic-db build writes one")
        };
        let (rows, cols) = (shape.height(), shape.width());
        let ranker = Ranker::new(rows, cols)?;
        let clock = Instant::now();
        let db = ClassicDb::build(ranker, &mut |_| {});
        let secs = clock.elapsed().as_secs_f64();
        Some(Found {
            source: format!(
                "from a database of the {rows}x{cols} box built in {secs:.3} s ({why})"
            ),
            db,
            shape,
        })
    }
}

/// `win` or `loss`, as solve and analyze print a value.
pub fn name(value: Value) -> &'static str {
    match value {
        Value::Win => "win",
        Value::Loss => "loss",
    }
}
