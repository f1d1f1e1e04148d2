//! The seats the client holds, kept between runs: each seat's token per server and room, in
//! `seats.json` in the user's state directory, so that a client that died can take its seat
//! back (`jchomp join ROOM` and the lobby offer it). The [`App`](crate::app::App) only says
//! what changed ([`SeatUpdate`]); the runner writes it here.

use serde::{Deserialize, Serialize};
use std::io;
use std::path::PathBuf;

/// The file's name in the state directory.
pub const FILE_NAME: &str = "seats.json";

/// A seat held in a room of a server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSeat {
    /// The server's address, as the client connects to it.
    pub server: String,
    /// The room id.
    pub room: String,
    /// The seat number.
    pub seat: u8,
    /// The token that resumes it.
    pub token: String,
    /// When it was kept, in milliseconds since the Unix epoch (0: unknown).
    #[serde(default)]
    pub saved_ms: u64,
}

/// How long a seat is kept when nothing says its game ended (a server restarted, a room that
/// closed while the client was away): a week.
pub const KEEP_MS: u64 = 7 * 24 * 3600 * 1000;

/// A change to the seats held, from the [`App`](crate::app::App).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatUpdate {
    /// A seat was taken (or taken back): keep its token.
    Keep {
        /// The room id.
        room: String,
        /// The seat.
        seat: u8,
        /// Its token.
        token: String,
    },
    /// The seat in this room is gone (the game ended, the seat was left, or its token was
    /// refused).
    Forget {
        /// The room id.
        room: String,
    },
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    seats: Vec<SavedSeat>,
}

/// The seats file.
#[derive(Clone, Debug)]
pub struct SeatStore {
    path: PathBuf,
}

impl SeatStore {
    /// The store at `path`.
    pub fn at(path: impl Into<PathBuf>) -> SeatStore {
        SeatStore { path: path.into() }
    }

    /// The store in the user's state directory (`$XDG_STATE_HOME/jchomp`, else
    /// `~/.local/state/jchomp`); `None` when neither is known.
    pub fn user() -> Option<SeatStore> {
        crate::user_dirs::state_dir().map(|d| SeatStore::at(d.join(FILE_NAME)))
    }

    /// Every seat kept, for all servers. A missing file holds none; a file that does not read
    /// is an error (it is left as it is).
    pub fn load(&self) -> io::Result<Vec<SavedSeat>> {
        Ok(crate::user_dirs::read_json::<File>(&self.path)?.map_or_else(Vec::new, |f| f.seats))
    }

    /// The seats kept on `server`.
    pub fn for_server(&self, server: &str) -> io::Result<Vec<SavedSeat>> {
        let mut seats = self.load()?;
        seats.retain(|s| s.server == server);
        Ok(seats)
    }

    /// Applies a change for `server`, writing the file anew, the user's alone (tokens are
    /// secrets; see [`write_private`](crate::user_dirs::write_private)). A file that does not
    /// read is moved aside to `seats.json.bad` rather than lost.
    pub fn apply(&self, server: &str, update: &SeatUpdate) -> io::Result<()> {
        let mut seats = match self.load() {
            Ok(s) => s,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                std::fs::rename(&self.path, self.path.with_extension("json.bad"))?;
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        let room = match update {
            SeatUpdate::Keep { room, .. } | SeatUpdate::Forget { room } => room,
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        seats.retain(|s| !(s.server == server && &s.room == room));
        seats.retain(|s| s.saved_ms == 0 || now.saturating_sub(s.saved_ms) < KEEP_MS);
        if let SeatUpdate::Keep { room, seat, token } = update {
            seats.push(SavedSeat {
                server: server.to_owned(),
                room: room.clone(),
                seat: *seat,
                token: token.clone(),
                saved_ms: now,
            });
        }
        let text = serde_json::to_vec_pretty(&File { seats }).map_err(io::Error::other)?;
        crate::user_dirs::write_private(&self.path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::temp::TempDir;

    fn keep(room: &str, token: &str) -> SeatUpdate {
        SeatUpdate::Keep {
            room: room.into(),
            seat: 1,
            token: token.into(),
        }
    }

    #[test]
    fn seats_are_kept_per_server_and_room_and_forgotten() {
        let dir = TempDir::new("seats");
        let store = SeatStore::at(dir.path().join("state/jchomp/seats.json"));
        assert_eq!(store.load().unwrap(), vec![]);
        store.apply("ws://a/ws", &keep("r1", "t1")).unwrap();
        store.apply("ws://b/ws", &keep("r1", "t2")).unwrap();
        store.apply("ws://a/ws", &keep("r1", "t3")).unwrap();
        let a = store.for_server("ws://a/ws").unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].token, "t3");
        store
            .apply("ws://a/ws", &SeatUpdate::Forget { room: "r1".into() })
            .unwrap();
        assert!(store.for_server("ws://a/ws").unwrap().is_empty());
        assert_eq!(store.for_server("ws://b/ws").unwrap()[0].token, "t2");
    }

    #[test]
    fn seats_older_than_a_week_are_dropped_on_the_next_write() {
        let dir = TempDir::new("seats");
        let store = SeatStore::at(dir.path().join("seats.json"));
        let old = r#"{"seats":[{"server":"s","room":"old","seat":0,"token":"t","saved_ms":1},
            {"server":"s","room":"unknown","seat":0,"token":"t"}]}"#;
        std::fs::write(&store.path, old).unwrap();
        assert_eq!(store.load().unwrap().len(), 2, "old files still read");
        store.apply("s", &keep("r1", "t1")).unwrap();
        let rooms: Vec<String> = store.load().unwrap().into_iter().map(|s| s.room).collect();
        assert_eq!(rooms, ["unknown", "r1"]);
    }

    #[test]
    fn a_damaged_file_is_an_error_and_is_moved_aside_not_lost() {
        let dir = TempDir::new("seats");
        let store = SeatStore::at(dir.path().join("seats.json"));
        std::fs::write(&store.path, "{not json").unwrap();
        let e = store.load().unwrap_err();
        assert!(e.to_string().contains("does not read"), "{e}");
        store.apply("s", &keep("r1", "t1")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("seats.json.bad")).unwrap(),
            "{not json"
        );
        assert_eq!(store.load().unwrap().len(), 1);
    }
}
