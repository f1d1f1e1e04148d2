//! The journal: an append-only log of [`Write`]s where a batch becomes durable with one
//! `fdatasync`, before the database ([`super::Store`]) takes the writes in at a
//! checkpoint. Its file format, its segments and reading it back after a crash.
//!
//! The journal is a sequence of segment files `journal-GENERATION.log` in the data directory.
//! Each holds records framed as `[payload length: u32 LE][CRC-32 of the payload: u32 LE]
//! [payload]`. A payload is a tag byte and the write:
//! - `1` [`Write::Live`]: the [`LiveRoom`] as JSON;
//! - `2` [`Write::Move`]: room id (u16 LE length, UTF-8), ply (u32 LE), row, column (u8 each),
//!   version (u64 LE) — 16 bytes beside the room id;
//! - `3` [`Write::Finished`]: room id (as above), then the record as JSON.
//!
//! A crash can leave the last record of the newest segment torn (cut short, or with a checksum
//! that does not match): reading stops there, since nothing after it was acknowledged.

use super::live::{LiveMove, LiveRoom, Write};
use jchomp_protocol::record::Record;
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Bytes of a record's frame before its payload.
const FRAME: usize = 8;
/// The largest payload read back: anything longer is a torn or corrupt length.
const MAX_PAYLOAD: usize = 16 << 20;

const TAG_LIVE: u8 = 1;
const TAG_MOVE: u8 = 2;
const TAG_FINISHED: u8 = 3;

/// The file name of segment `generation`.
pub(crate) fn segment_name(generation: u64) -> String {
    format!("journal-{generation:016}.log")
}

/// The generation of a segment file name, if it is one.
fn segment_generation(name: &str) -> Option<u64> {
    name.strip_prefix("journal-")?
        .strip_suffix(".log")?
        .parse()
        .ok()
}

/// The segment files in `dir`, oldest first, with their generations.
pub(crate) fn segments(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(generation) = entry.file_name().to_str().and_then(segment_generation) {
            found.push((generation, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// What reading a segment back found.
#[derive(Debug, Default)]
pub(crate) struct Read {
    /// The whole records, in order.
    pub writes: Vec<Write>,
    /// Bytes after the last whole record (a torn tail), ignored.
    pub ignored: usize,
}

/// Reads one segment: every whole record up to the end or to the first one torn or corrupt.
pub(crate) fn read(path: &Path) -> io::Result<Read> {
    let bytes = std::fs::read(path)?;
    Ok(decode_all(&bytes))
}

/// The records of a segment's bytes, up to the first that is torn or corrupt.
fn decode_all(bytes: &[u8]) -> Read {
    let mut out = Read::default();
    let mut at = 0;
    while at < bytes.len() {
        match frame_at(&bytes[at..]).and_then(|(payload, len)| Some((decode(payload)?, len))) {
            Some((write, len)) => {
                out.writes.push(write);
                at += len;
            }
            None => break,
        }
    }
    out.ignored = bytes.len() - at;
    out
}

/// The payload of the record at the start of `bytes` and the record's whole length, if it is
/// whole and its checksum matches.
fn frame_at(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let len = usize::try_from(u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?)).ok()?;
    let crc = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
    if len > MAX_PAYLOAD {
        return None;
    }
    let payload = bytes.get(FRAME..FRAME + len)?;
    (crc32fast::hash(payload) == crc).then_some((payload, FRAME + len))
}

/// Appends the framed record of `write` to `buf`.
pub(crate) fn encode(write: &Write, buf: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    let start = buf.len();
    buf.extend_from_slice(&[0; FRAME]);
    match write {
        Write::Live(room) => {
            buf.push(TAG_LIVE);
            serde_json::to_writer(&mut *buf, room)?;
        }
        Write::Move { room, ply, mv } => {
            buf.push(TAG_MOVE);
            put_str(buf, room);
            buf.extend_from_slice(&ply.to_le_bytes());
            buf.extend_from_slice(&[mv.row, mv.col]);
            buf.extend_from_slice(&mv.version.to_le_bytes());
        }
        Write::Finished { room, record } => {
            buf.push(TAG_FINISHED);
            put_str(buf, room);
            serde_json::to_writer(&mut *buf, record)?;
        }
    }
    let payload = &buf[start + FRAME..];
    let len = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .to_le_bytes();
    let crc = crc32fast::hash(payload).to_le_bytes();
    buf[start..start + 4].copy_from_slice(&len);
    buf[start + 4..start + FRAME].copy_from_slice(&crc);
    Ok(())
}

/// A room id, its length first (ids are short: longer ones are cut at 65,535 bytes, which no
/// room id reaches).
fn put_str(buf: &mut Vec<u8>, s: &str) {
    let bytes = &s.as_bytes()[..s.len().min(usize::from(u16::MAX))];
    let len = u16::try_from(bytes.len()).unwrap_or(u16::MAX);
    buf.extend_from_slice(&len.to_le_bytes());
    buf.extend_from_slice(bytes);
}

/// The write of one payload, or `None` if it does not decode.
fn decode(payload: &[u8]) -> Option<Write> {
    let (&tag, rest) = payload.split_first()?;
    match tag {
        TAG_LIVE => {
            let room: LiveRoom = serde_json::from_slice(rest).ok()?;
            Some(Write::Live(Box::new(room)))
        }
        TAG_MOVE => {
            let (room, rest) = take_str(rest)?;
            if rest.len() != 14 {
                return None;
            }
            let ply = u32::from_le_bytes(rest[0..4].try_into().ok()?);
            let version = u64::from_le_bytes(rest[6..14].try_into().ok()?);
            Some(Write::Move {
                room,
                ply,
                mv: LiveMove {
                    row: rest[4],
                    col: rest[5],
                    version,
                },
            })
        }
        TAG_FINISHED => {
            let (room, rest) = take_str(rest)?;
            let record: Record = serde_json::from_slice(rest).ok()?;
            Some(Write::Finished {
                room,
                record: Box::new(record),
            })
        }
        _ => None,
    }
}

/// A length-prefixed string and what follows it.
fn take_str(bytes: &[u8]) -> Option<(String, &[u8])> {
    let len = usize::from(u16::from_le_bytes(bytes.get(0..2)?.try_into().ok()?));
    let s = std::str::from_utf8(bytes.get(2..2 + len)?).ok()?;
    Some((s.to_string(), &bytes[2 + len..]))
}

/// Makes the directory's entries (a segment created or removed) durable.
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Removes segments that a checkpoint has taken into the database, durably.
pub(crate) fn remove(dir: &Path, paths: &[PathBuf]) -> io::Result<()> {
    if paths.is_empty() {
        return Ok(());
    }
    for path in paths {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    sync_dir(dir)
}

/// The segment being appended to.
#[derive(Debug)]
pub(crate) struct Journal {
    file: File,
    generation: u64,
    path: PathBuf,
    /// The batch being encoded, kept to reuse its allocation.
    buf: Vec<u8>,
}

impl Journal {
    /// Creates segment `generation` in `dir` (durably: the directory is synced) and appends to
    /// it from now on.
    pub(crate) fn create(dir: &Path, generation: u64) -> io::Result<Journal> {
        let path = dir.join(segment_name(generation));
        let file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)?;
        sync_dir(dir)?;
        Ok(Journal {
            file,
            generation,
            path,
            buf: Vec::new(),
        })
    }

    /// Appends `writes` and returns once the operating system has them (one `write`; they are
    /// on disk after [`Journal::sync`]). A write that cannot be encoded is left out (and logged).
    pub(crate) fn append(&mut self, writes: &[Write]) -> io::Result<()> {
        self.buf.clear();
        for write in writes {
            let mark = self.buf.len();
            if let Err(e) = encode(write, &mut self.buf) {
                self.buf.truncate(mark);
                tracing::error!(error = %e, "a write could not be encoded for the journal");
            }
        }
        self.file.write_all(&self.buf)?;
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        Ok(())
    }

    /// Puts everything appended so far on disk (one `fdatasync`).
    pub(crate) fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// The segment's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The segment's generation.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::config_json;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
    use jchomp_testkit::temp::TempDir;

    fn writes() -> Vec<Write> {
        vec![
            Write::Live(Box::new(LiveRoom {
                room: "r1".into(),
                config: config_json("4x4 poison 0,0"),
                seats: vec![],
                host: Some(0),
                started_ms: Some(5),
                version: 3,
                moves: 0,
                time_left_ms: None,
                games_played: 0,
            })),
            Write::Move {
                room: "r1".into(),
                ply: 7,
                mv: LiveMove {
                    row: 2,
                    col: 3,
                    version: 1 << 40,
                },
            },
            Write::Finished {
                room: "r1".into(),
                record: Box::new(
                    record("4x4 poison 0,0")
                        .id("r1")
                        .seats(["a", "b"])
                        .result(ResultJson::Abandoned { loser: 1 })
                        .started(1)
                        .finished(2),
                ),
            },
        ]
    }

    fn bytes_of(writes: &[Write]) -> Vec<u8> {
        let mut buf = Vec::new();
        for w in writes {
            encode(w, &mut buf).unwrap();
        }
        buf
    }

    #[test]
    fn every_write_reads_back_as_written() {
        let read = decode_all(&bytes_of(&writes()));
        assert_eq!(read.writes, writes());
        assert_eq!(read.ignored, 0);
    }

    #[test]
    fn a_torn_tail_is_ignored_and_everything_before_it_kept() {
        let whole = bytes_of(&writes());
        let first_two = bytes_of(&writes()[..2]).len();
        // Cut anywhere inside the last record: the first two stay, the rest is ignored.
        for cut in first_two + 1..whole.len() {
            let read = decode_all(&whole[..cut]);
            assert_eq!(read.writes, writes()[..2], "cut at {cut}");
            assert_eq!(read.ignored, cut - first_two);
        }
    }

    #[test]
    fn a_corrupt_record_ends_the_reading_there() {
        let mut bytes = bytes_of(&writes());
        let first = bytes_of(&writes()[..1]).len();
        // One flipped bit in the second record's payload.
        bytes[first + FRAME + 3] ^= 0x10;
        let read = decode_all(&bytes);
        assert_eq!(read.writes, writes()[..1]);
        assert_eq!(read.ignored, bytes.len() - first);
        // A length no record has.
        let mut bytes = bytes_of(&writes());
        bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_all(&bytes).writes.is_empty());
    }

    #[test]
    fn segments_are_appended_and_listed_oldest_first() {
        let tmp = TempDir::new("journal-segments");
        let dir = tmp.path();
        std::fs::write(dir.join("games.redb"), b"not a segment").unwrap();
        let mut journal = Journal::create(dir, 10).unwrap();
        journal.append(&writes()[1..2]).unwrap();
        journal.sync().unwrap();
        journal.append(&writes()[2..]).unwrap();
        let mut older = Journal::create(dir, 9).unwrap();
        older.append(&writes()[..1]).unwrap();
        let old = older.path().to_path_buf();
        let found = segments(dir).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].0, found[1].0), (9, 10));
        assert_eq!(found[0].1, old);
        assert_eq!(read(&found[0].1).unwrap().writes, writes()[..1]);
        assert_eq!(read(&found[1].1).unwrap().writes, writes()[1..]);
        remove(dir, &[old]).unwrap();
        assert_eq!(segments(dir).unwrap().len(), 1);
    }
}
