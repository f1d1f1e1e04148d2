//! [`ClassicLibrary`]: where a program finds the classic database (15×15 unless told otherwise) — read once from its
//! file, or built (and saved) on a background thread the first time it is needed, while callers
//! fall back to search.

use super::db::{ClassicDb, DbError};
use super::rank::Ranker;
use super::shape::MAX_SIDE;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The database file's name in a data directory.
pub const FILE_NAME: &str = "classic-15x15.db";

/// Where the database is in its life.
#[derive(Clone, Debug)]
pub enum Availability {
    /// Not asked for yet.
    Idle,
    /// Being read or built on a background thread.
    Loading,
    /// Ready.
    Ready(Arc<ClassicDb>),
    /// Reading failed and so did building (should not happen), or the file could not be
    /// written (the database is still ready in memory then; see [`ClassicLibrary::note`]).
    Failed(String),
}

/// The 15×15 database of one program, shared by its tasks.
#[derive(Debug)]
pub struct ClassicLibrary {
    path: Option<PathBuf>,
    size: (usize, usize),
    /// Whether a missing or unusable file is built (false: only read, whatever its box).
    builds: bool,
    state: Mutex<Availability>,
    note: Mutex<Option<String>>,
}

impl ClassicLibrary {
    /// A library that reads `path` if it exists and writes it after building; `None` keeps the
    /// database in memory only.
    pub fn new(path: Option<PathBuf>) -> Arc<ClassicLibrary> {
        ClassicLibrary::with_box(path, MAX_SIDE, MAX_SIDE)
    }

    /// A library of the database of a smaller `rows` × `cols` box (each clamped to 1–15):
    /// positions outside it are not in the database.
    pub fn with_box(path: Option<PathBuf>, rows: usize, cols: usize) -> Arc<ClassicLibrary> {
        Arc::new(ClassicLibrary {
            path,
            size: (rows.clamp(1, MAX_SIDE), cols.clamp(1, MAX_SIDE)),
            builds: true,
            state: Mutex::new(Availability::Idle),
            note: Mutex::new(None),
        })
    }

    /// A library that only reads the database in `path` (of whatever box it holds, as
    /// `jchomp-bot classic-db build` writes it) and never builds nor writes: a missing or
    /// unusable file leaves it [`Availability::Failed`] with the reason, and its players fall
    /// back to search.
    pub fn read_only(path: PathBuf) -> Arc<ClassicLibrary> {
        Arc::new(ClassicLibrary {
            path: Some(path),
            size: (MAX_SIDE, MAX_SIDE),
            builds: false,
            state: Mutex::new(Availability::Idle),
            note: Mutex::new(None),
        })
    }

    /// The file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The database if it is ready. The first call starts reading or building it on a
    /// background thread and returns `None`; so do calls while that runs.
    pub fn get(self: &Arc<Self>) -> Option<Arc<ClassicDb>> {
        let mut state = self.lock();
        match &*state {
            Availability::Ready(db) => Some(db.clone()),
            Availability::Loading | Availability::Failed(_) => None,
            Availability::Idle => {
                *state = Availability::Loading;
                drop(state);
                let me = self.clone();
                let spawned =
                    std::thread::Builder::new()
                        .name("classic-db".into())
                        .spawn(move || {
                            let outcome = me.settled();
                            *me.lock() = outcome;
                        });
                if let Err(e) = spawned {
                    *self.lock() = Availability::Failed(format!("cannot start a thread: {e}"));
                }
                None
            }
        }
    }

    /// The database, read or built on this thread if it is not ready (a tool that needs the
    /// answer now). Waits for a background load already under way.
    pub fn wait(self: &Arc<Self>) -> Result<Arc<ClassicDb>, String> {
        loop {
            let mut state = self.lock();
            match &*state {
                Availability::Ready(db) => return Ok(db.clone()),
                Availability::Failed(e) => return Err(e.clone()),
                Availability::Loading => {
                    drop(state);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Availability::Idle => {
                    // Claimed under the same lock that saw it idle: one build at most.
                    *state = Availability::Loading;
                    drop(state);
                    let outcome = self.settled();
                    *self.lock() = outcome;
                }
            }
        }
    }

    /// Where the database is now.
    pub fn availability(&self) -> Availability {
        self.lock().clone()
    }

    /// A problem worth telling the user that did not stop the database (a file that could not
    /// be read and was rebuilt, or could not be written).
    pub fn note(&self) -> Option<String> {
        self.note.lock().map_or(None, |n| n.clone())
    }

    fn lock(&self) -> MutexGuard<'_, Availability> {
        // A panic while holding the lock leaves a plain value behind: still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_note(&self, text: String) {
        if let Ok(mut n) = self.note.lock() {
            *n = Some(text);
        }
    }

    /// [`ClassicLibrary::load_or_build`], with a panic turned into `Failed` so that waiters do
    /// not wait for ever.
    fn settled(&self) -> Availability {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.load_or_build()))
            .unwrap_or_else(|_| Availability::Failed("building the classic database failed".into()))
    }

    fn load_or_build(&self) -> Availability {
        if !self.builds {
            let Some(path) = &self.path else {
                return Availability::Failed("no database file".into());
            };
            return match ClassicDb::load(path) {
                Ok(db) => Availability::Ready(Arc::new(db)),
                Err(DbError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    Availability::Failed(format!("no classic database at {}", path.display()))
                }
                Err(e) => Availability::Failed(e.to_string()),
            };
        }
        if let Some(path) = &self.path {
            match ClassicDb::load(path) {
                Ok(db) if db.size() == self.size => {
                    return Availability::Ready(Arc::new(db));
                }
                Ok(db) => self.set_note(format!(
                    "{} holds a {}x{} box, not {}x{}: rebuilt",
                    path.display(),
                    db.size().0,
                    db.size().1,
                    self.size.0,
                    self.size.1
                )),
                Err(DbError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => self.set_note(format!("{e}: rebuilt")),
            }
        }
        let Some(ranker) = Ranker::new(self.size.0, self.size.1) else {
            return Availability::Failed(format!("no {}x{} box", self.size.0, self.size.1));
        };
        let db = ClassicDb::build(ranker, &mut |_| {});
        if let Some(path) = &self.path
            && let Err(e) = db.save(path)
        {
            self.set_note(format!("{e} (the database stays in memory)"));
        }
        Availability::Ready(Arc::new(db))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::Shape;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("jchomp-library-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn builds_in_the_background_then_saves_and_reads_the_file() {
        let d = dir("bg");
        let path = d.join(FILE_NAME);
        let lib = ClassicLibrary::with_box(Some(path.clone()), 5, 5);
        assert!(matches!(lib.availability(), Availability::Idle));
        let mut db = lib.get();
        let start = std::time::Instant::now();
        while db.is_none() && start.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            db = lib.get();
        }
        let db = db.unwrap();
        assert!(path.is_file());
        assert_eq!(lib.note(), None);
        let square = Shape::rectangle(5, 5).unwrap();
        // A second program reads the file instead of building.
        let again = ClassicLibrary::with_box(Some(path.clone()), 5, 5)
            .wait()
            .unwrap();
        assert_eq!(again.lookup(&square), db.lookup(&square));
        // A file of another box is rebuilt, and the library says so.
        let other = ClassicLibrary::with_box(Some(path), 4, 4);
        assert_eq!(other.wait().unwrap().size(), (4, 4));
        assert!(other.note().unwrap().contains("not 4x4"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_read_only_library_reads_any_box_and_never_builds() {
        let d = dir("read-only");
        let path = d.join("classic-3x5.db");
        let missing = ClassicLibrary::read_only(path.clone());
        let err = missing.wait().unwrap_err();
        assert!(err.starts_with("no classic database at "), "{err}");
        assert!(err.ends_with("classic-3x5.db"), "{err}");
        assert!(!path.exists());
        ClassicLibrary::with_box(Some(path.clone()), 3, 5)
            .wait()
            .unwrap();
        let lib = ClassicLibrary::read_only(path);
        assert_eq!(lib.wait().unwrap().size(), (3, 5));
        assert_eq!(lib.note(), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn waiters_at_once_share_one_build() {
        let lib = ClassicLibrary::with_box(None, 6, 6);
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| lib.wait().unwrap());
            let b = s.spawn(|| lib.wait().unwrap());
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(&a, &lib.get().unwrap()));
    }

    #[test]
    fn an_unwritable_file_leaves_the_database_in_memory() {
        let d = dir("ro");
        let path = d.join("no-such-dir").join(FILE_NAME);
        let lib = ClassicLibrary::with_box(Some(path), 4, 4);
        assert_eq!(lib.wait().unwrap().size(), (4, 4));
        assert!(lib.note().unwrap().contains("stays in memory"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
