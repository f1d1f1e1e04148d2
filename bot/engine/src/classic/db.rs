//! [`ClassicDb`]: the value and plies of every classic position inside a box, built in memory or
//! read from a file, answering lookups, best moves and per-move annotations.
//!
//! The file is a 32-byte header (`JCHOMPDB`, format version, rows, columns, the number of
//! positions, a checksum of the body) and then one byte per position in rank order: the plies to
//! the end under optimal play, odd for a loss of the player to move and even for a win.

use super::build::{Progress, build};
use super::rank::Ranker;
use super::shape::Shape;
use std::io::{Read, Write};
use std::path::Path;

/// The first bytes of a database file.
const MAGIC: &[u8; 8] = b"JCHOMPDB";
/// The format version this code reads and writes.
const VERSION: u32 = 1;
/// Bytes before the body.
const HEADER: usize = 32;

/// Who wins a position with best play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// The player to move wins.
    Win,
    /// The player to move loses.
    Loss,
}

/// A position's exact value: who wins, and in how many plies the game ends under optimal play
/// (the winner hurries, the loser delays), counting the selection that eats the poison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// Win or loss for the player to move.
    pub value: Value,
    /// Plies to the end.
    pub plies: u8,
}

impl Solved {
    fn from_plies(plies: u8) -> Solved {
        let value = if plies.is_multiple_of(2) {
            Value::Win
        } else {
            Value::Loss
        };
        Solved { value, plies }
    }
}

/// One selection from a position and what it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// Row of the selected cell (0 at the top).
    pub row: u8,
    /// Column of the selected cell (0 at the left).
    pub col: u8,
    /// Win if this selection wins for the player making it; plies to the end, this one
    /// included (even for a winning selection, odd for a losing one).
    pub solved: Solved,
}

/// Why a database file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// Not a database file, another version, or damaged.
    #[error("{path} is not a usable classic Chomp database: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The exact database of the classic positions inside a box.
#[derive(Clone)]
pub struct ClassicDb {
    ranker: Ranker,
    plies: Vec<u8>,
}

impl std::fmt::Debug for ClassicDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ClassicDb({}x{})",
            self.ranker.rows(),
            self.ranker.cols()
        )
    }
}

impl ClassicDb {
    /// Builds the database of the `ranker`'s box in memory.
    pub fn build(ranker: Ranker, progress: Progress<'_>) -> ClassicDb {
        let plies = build(&ranker, progress);
        ClassicDb { ranker, plies }
    }

    /// Rows and columns of the box.
    pub fn size(&self) -> (usize, usize) {
        (self.ranker.rows(), self.ranker.cols())
    }

    /// Positions with the poison still on the board.
    pub fn positions(&self) -> u64 {
        self.ranker.count() - 1
    }

    /// Positions whose player to move loses (the poison alone among them).
    pub fn p_positions(&self) -> u64 {
        self.plies[1..].iter().filter(|&&p| p % 2 == 1).count() as u64
    }

    /// The exact value of `shape`, or `None` if it fits in the box neither as it is nor
    /// transposed, or is the empty board.
    pub fn lookup(&self, shape: &Shape) -> Option<Solved> {
        if shape.height() == 0 {
            return None;
        }
        let rank = if self.ranker.fits(shape) {
            self.ranker.rank(shape)
        } else {
            let t = shape.transpose();
            if !self.ranker.fits(&t) {
                return None;
            }
            self.ranker.rank(&t)
        };
        self.plies
            .get(rank as usize)
            .map(|&p| Solved::from_plies(p))
    }

    /// Every selection from `shape` with its value, in row-major order; `None` if the position
    /// is not in the database.
    pub fn analyze(&self, shape: &Shape) -> Option<Vec<MoveValue>> {
        self.lookup(shape)?;
        let mut moves = Vec::with_capacity(shape.cells());
        for r in 0..shape.height() {
            for c in 0..shape.row(r) as usize {
                let child = shape.select(r, c)?;
                // Eating the poison loses at once: one ply, a loss for the eater.
                let child_plies = self.lookup(&child).map_or(0, |s| s.plies);
                let plies = child_plies.saturating_add(1);
                let value = if child_plies % 2 == 1 {
                    Value::Win
                } else {
                    Value::Loss
                };
                moves.push(MoveValue {
                    row: r as u8,
                    col: c as u8,
                    solved: Solved { value, plies },
                });
            }
        }
        Some(moves)
    }

    /// An optimal selection: the fastest win, or else the longest defence.
    pub fn best_move(&self, shape: &Shape) -> Option<MoveValue> {
        let moves = self.analyze(shape)?;
        moves.into_iter().min_by_key(|m| match m.solved.value {
            Value::Win => (0, i32::from(m.solved.plies)),
            Value::Loss => (1, -i32::from(m.solved.plies)),
        })
    }

    /// Writes the database to `path` (through a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<(), DbError> {
        let io = |source| DbError::Io {
            path: path.display().to_string(),
            source,
        };
        let tmp = path.with_extension("tmp");
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        file.write_all(&self.header()).map_err(io)?;
        file.write_all(&self.plies).map_err(io)?;
        let file = file.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Reads a database written by [`ClassicDb::save`], checking its header and checksum.
    pub fn load(path: &Path) -> Result<ClassicDb, DbError> {
        let name = path.display().to_string();
        let format = |reason: String| DbError::Format {
            path: name.clone(),
            reason,
        };
        let mut file = std::fs::File::open(path).map_err(|source| DbError::Io {
            path: name.clone(),
            source,
        })?;
        let mut head = [0u8; HEADER];
        file.read_exact(&mut head)
            .map_err(|_| format("shorter than its header".into()))?;
        if &head[..8] != MAGIC {
            return Err(format("it does not start with JCHOMPDB".into()));
        }
        let word =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let long = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&head[at..at + 8]);
            u64::from_le_bytes(b)
        };
        if word(8) != VERSION {
            return Err(format(format!(
                "format version {}, expected {VERSION}",
                word(8)
            )));
        }
        let (rows, cols) = (word(12) as usize, word(16) as usize);
        let ranker = Ranker::new(rows, cols)
            .ok_or_else(|| format(format!("a {rows}x{cols} box is not 1–15 by 1–15")))?;
        let count = ranker.count();
        if u64::from(word(20)) != count {
            return Err(format(format!(
                "its header counts {} positions, a {rows}x{cols} box has {count}",
                word(20)
            )));
        }
        // The size is checked before anything is allocated for the body: a short or long file
        // is refused without reading it.
        let stored = file
            .metadata()
            .map_err(|source| DbError::Io {
                path: name.clone(),
                source,
            })?
            .len()
            .saturating_sub(HEADER as u64);
        if stored != count {
            return Err(format(format!(
                "{stored} positions stored, a {rows}x{cols} box has {count}"
            )));
        }
        let mut plies = Vec::with_capacity(count as usize);
        // At most one byte more than expected: a file that grew meanwhile is refused below.
        file.take(count + 1)
            .read_to_end(&mut plies)
            .map_err(|source| DbError::Io {
                path: name.clone(),
                source,
            })?;
        if plies.len() as u64 != count {
            return Err(format(format!(
                "{} positions stored, a {rows}x{cols} box has {count}",
                plies.len()
            )));
        }
        if checksum(&plies) != long(24) {
            return Err(format(
                "its checksum does not match: the file is damaged".into(),
            ));
        }
        Ok(ClassicDb { ranker, plies })
    }

    fn header(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(self.ranker.rows() as u32).to_le_bytes());
        h[16..20].copy_from_slice(&(self.ranker.cols() as u32).to_le_bytes());
        h[20..24].copy_from_slice(&(self.ranker.count() as u32).to_le_bytes());
        h[24..32].copy_from_slice(&checksum(&self.plies).to_le_bytes());
        h
    }
}

/// FNV-1a over 8-byte words (and the tail byte by byte): cheap, and enough to catch a damaged
/// or truncated file.
fn checksum(data: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(b)).wrapping_mul(PRIME);
    }
    for &byte in chunks.remainder() {
        h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(r: usize, c: usize) -> ClassicDb {
        ClassicDb::build(Ranker::new(r, c).unwrap(), &mut |_| {})
    }

    #[test]
    fn best_moves_and_analysis_agree_with_the_values() {
        let db = db(6, 6);
        let shape: Shape = "6,5,5,3,1".parse().unwrap();
        let solved = db.lookup(&shape).unwrap();
        let moves = db.analyze(&shape).unwrap();
        assert_eq!(moves.len(), shape.cells());
        let best = db.best_move(&shape).unwrap();
        assert_eq!(best.solved.plies, solved.plies);
        assert_eq!(best.solved.value, solved.value);
        let poison = moves.iter().find(|m| (m.row, m.col) == (0, 0)).unwrap();
        assert_eq!(
            poison.solved,
            Solved {
                value: Value::Loss,
                plies: 1
            }
        );
        for m in &moves {
            assert_eq!(m.solved.plies % 2 == 0, m.solved.value == Value::Win);
        }
    }

    #[test]
    fn files_round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("jchomp-classic-db-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("classic.db");
        let db = db(5, 6);
        db.save(&path).unwrap();
        let back = ClassicDb::load(&path).unwrap();
        assert_eq!(back.size(), (5, 6));
        assert_eq!(back.plies, db.plies);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let err = ClassicDb::load(&path).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        std::fs::write(&path, b"not a database at all, no, not at all").unwrap();
        let err = ClassicDb::load(&path).unwrap_err().to_string();
        assert!(err.contains("JCHOMPDB"), "{err}");
        bytes.truncate(100);
        std::fs::write(&path, &bytes).unwrap();
        let err = ClassicDb::load(&path).unwrap_err().to_string();
        assert!(err.contains("positions stored"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
