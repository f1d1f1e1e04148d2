//! The output directory: `tournament.json` (the [`Settings`], so that `--resume` replays them),
//! `games.jsonl` (one game record per line, in game-index order, the record's `id` being the
//! index) and `results.json` (standings, every pairing's tally and the SPRT).

use super::results::Results;
use super::settings::{Settings, SettingsError};
use jchomp_engine::arena::Failure;
use jchomp_protocol::record::{Record, ReplayError};
use jchomp_rules::{Game, GameResult, Seat};
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Why the output directory could not be written or read back. Each message is whole: it
/// includes the message of the error it wraps, which is therefore not given as a source.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// A value could not be written as JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// The directory already holds a tournament.
    #[error("{dir} already holds a tournament; continue it with --resume {dir}", dir = .0.display())]
    Taken(PathBuf),
    /// The stored settings are not JSON settings.
    #[error("{}: {error}", path.display())]
    BadSettings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with it.
        error: serde_json::Error,
    },
    /// The stored settings do not make a tournament.
    #[error("{}: {error}", path.display())]
    InvalidSettings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with them.
        error: SettingsError,
    },
    /// A stored game is refused; `line` counts from 1.
    #[error("{} line {line}: {error}", path.display())]
    Line {
        /// The games file.
        path: PathBuf,
        /// The line.
        line: usize,
        /// What is wrong with it.
        error: LineError,
    },
}

/// What is wrong with one line of `games.jsonl`.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// It is not a JSON game record.
    #[error("{0}")]
    Json(serde_json::Error),
    /// Its failure field names no failure.
    #[error("unknown failure {0:?}")]
    UnknownFailure(String),
    /// Its id is not its index.
    #[error("expected id \"{index}\", got {got:?}")]
    WrongId {
        /// The line's index.
        index: u64,
        /// The id it holds.
        got: Option<String>,
    },
    /// Its seats are not the bots scheduled.
    #[error("seats {seats:?} are not the scheduled {names:?}")]
    WrongSeats {
        /// The seats it names.
        seats: Vec<String>,
        /// The bots scheduled.
        names: Vec<String>,
    },
    /// Its moves do not replay.
    #[error("{0}")]
    Replay(ReplayError),
    /// Its game has no result.
    #[error("the game is not finished")]
    Unfinished,
}

/// The settings file.
pub const SETTINGS_FILE: &str = "tournament.json";
/// The game records file.
pub const GAMES_FILE: &str = "games.jsonl";
/// The results file.
pub const RESULTS_FILE: &str = "results.json";

/// An I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError {
    move |error| OutputError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The JSON line of one game: its record with the game index as `id`, plus `failure` (and an
/// engine's last lines) when a participant lost by failing.
pub fn record_line(
    index: u64,
    game: &Game,
    names: Vec<String>,
    failure: Option<(Seat, Failure)>,
    lines: Vec<String>,
) -> Result<String, OutputError> {
    let mut record = Record::from_game(game, names, None);
    record.id = Some(index.to_string());
    record.failure = failure.map(|(_, kind)| kind.name().to_string());
    record.failure_lines = lines;
    serde_json::to_string(&record).map_err(OutputError::Json)
}

/// One game read back from `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// How it ended.
    pub result: GameResult,
    /// The seat that lost by failing, and how.
    pub failure: Option<(Seat, Failure)>,
}

/// Parses and checks line `index` of `games.jsonl`: the id must be the index, the seats the
/// expected names, and the record must replay.
pub fn parse_line(line: &str, index: u64, names: &[String]) -> Result<StoredGame, LineError> {
    let record: Record = serde_json::from_str(line).map_err(LineError::Json)?;
    let failure = match record.failure.as_deref() {
        None => None,
        Some(name) => Some(
            Failure::from_name(name).ok_or_else(|| LineError::UnknownFailure(name.to_string()))?,
        ),
    };
    if record.id.as_deref() != Some(index.to_string().as_str()) {
        return Err(LineError::WrongId {
            index,
            got: record.id,
        });
    }
    if record.seats != names {
        return Err(LineError::WrongSeats {
            seats: record.seats,
            names: names.to_vec(),
        });
    }
    let game = record.replay().map_err(LineError::Replay)?;
    let result = game.result().ok_or(LineError::Unfinished)?;
    Ok(StoredGame {
        result,
        failure: failure.and_then(|f| result.loser().map(|l| (l, f))),
    })
}

/// An open output directory.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    games: BufWriter<File>,
}

impl OutDir {
    /// Creates `dir` (if needed) for a new tournament and writes its settings. Refuses a
    /// directory that already holds a tournament.
    pub fn create(dir: &Path, settings: &Settings) -> Result<OutDir, OutputError> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        let settings_path = dir.join(SETTINGS_FILE);
        if settings_path.exists() {
            return Err(OutputError::Taken(dir.to_path_buf()));
        }
        let text = serde_json::to_string_pretty(settings).map_err(OutputError::Json)?;
        fs::write(&settings_path, text + "\n").map_err(io(&settings_path))?;
        let games_path = dir.join(GAMES_FILE);
        let games = File::create(&games_path).map_err(io(&games_path))?;
        Ok(OutDir {
            dir: dir.to_path_buf(),
            games: BufWriter::new(games),
        })
    }

    /// Opens a tournament's directory to continue it: its settings and the games already
    /// played (a damaged last line, from a hard stop, is cut off). `check(index, line)` reads
    /// each line; the first line it refuses ends the games kept.
    pub fn resume<F>(dir: &Path, mut check: F) -> Result<(OutDir, Settings), OutputError>
    where
        F: FnMut(&Settings, u64, &str) -> Result<(), LineError>,
    {
        let settings_path = dir.join(SETTINGS_FILE);
        let text = fs::read_to_string(&settings_path).map_err(io(&settings_path))?;
        let settings: Settings =
            serde_json::from_str(&text).map_err(|error| OutputError::BadSettings {
                path: settings_path.clone(),
                error,
            })?;
        settings
            .validate()
            .map_err(|error| OutputError::InvalidSettings {
                path: settings_path.clone(),
                error,
            })?;
        let games_path = dir.join(GAMES_FILE);
        let text = fs::read_to_string(&games_path).unwrap_or_default();
        let mut kept = 0usize;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            // A line without its newline was cut off by a hard stop: that game is played again.
            let Some(line_text) = line.strip_suffix('\n') else {
                break;
            };
            check(&settings, index as u64, line_text).map_err(|error| OutputError::Line {
                path: games_path.clone(),
                line: index + 1,
                error,
            })?;
            kept += line.len();
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&games_path)
            .map_err(io(&games_path))?;
        file.set_len(kept as u64).map_err(io(&games_path))?;
        Ok((
            OutDir {
                dir: dir.to_path_buf(),
                games: BufWriter::new(file),
            },
            settings,
        ))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Appends one game's line.
    pub fn append(&mut self, line: &str) -> Result<(), OutputError> {
        self.games
            .write_all(line.as_bytes())
            .and_then(|()| self.games.write_all(b"\n"))
            .map_err(io(&self.dir.join(GAMES_FILE)))
    }

    /// Writes buffered lines to the file.
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.games.flush().map_err(io(&self.dir.join(GAMES_FILE)))
    }

    /// Writes `results.json` (through a temporary file, so a reader never sees half of it).
    pub fn write_results(&mut self, results: &Results<'_>) -> Result<(), OutputError> {
        self.flush()?;
        let path = self.dir.join(RESULTS_FILE);
        let tmp = self.dir.join(format!("{RESULTS_FILE}.tmp"));
        let text = serde_json::to_string_pretty(results).map_err(OutputError::Json)?;
        fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
        fs::rename(&tmp, &path).map_err(io(&path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    fn game() -> Game {
        let mut g = Game::new(board("4x4 eat 1x2 poison 0,0"));
        g.select(3, 2).unwrap();
        g.end(GameResult::Timeout { loser: 1 });
        g
    }

    #[test]
    fn lines_carry_the_index_and_the_failure_and_are_checked_on_reading() {
        let names = vec!["a".to_string(), "b".to_string()];
        let line = record_line(
            7,
            &game(),
            names.clone(),
            Some((1, Failure::Overtime)),
            vec!["overtime: no bestmove in time".into(), "> go seat 1".into()],
        )
        .unwrap();
        assert!(
            line.contains("\"failure_lines\":[\"overtime: no bestmove in time\",\"> go seat 1\"]"),
            "{line}"
        );
        assert!(line.starts_with("{\"id\":\"7\","), "{line}");
        assert!(line.contains("\"failure\":\"overtime\""), "{line}");
        let stored = parse_line(&line, 7, &names).unwrap();
        assert_eq!(stored.result, GameResult::Timeout { loser: 1 });
        assert_eq!(stored.failure, Some((1, Failure::Overtime)));
        let refusal = |line: &str, index, names: &[String]| {
            parse_line(line, index, names).unwrap_err().to_string()
        };
        assert!(refusal(&line, 8, &names).contains("expected id \"8\""));
        let swapped = vec!["b".to_string(), "a".to_string()];
        assert!(refusal(&line, 7, &swapped).contains("scheduled"));
        let bad = line.replace("\"row\":3", "\"row\":9");
        assert!(refusal(&bad, 7, &names).contains("move 0"));
        let plain = record_line(0, &game(), names.clone(), None, Vec::new()).unwrap();
        assert!(!plain.contains("failure"));
    }
}
