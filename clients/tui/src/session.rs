//! The login session the client keeps between runs: per server, the account's name and its
//! session token, in `session.json` beside the seats file in the user's state directory,
//! readable by the user alone. `jchomp register` and `jchomp login` write it, every connection
//! `authenticate`s with it, and `jchomp logout` (or a token the server no longer takes)
//! removes it.

use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// The file's name in the state directory.
pub const FILE_NAME: &str = "session.json";

/// A session held on one server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSession {
    /// The server's address, as the client connects to it.
    pub server: String,
    /// The account's name as registered.
    pub name: String,
    /// The session token to `authenticate` with.
    pub token: String,
    /// When the session ends, milliseconds since the Unix epoch (0: unknown).
    #[serde(default)]
    pub expires_ms: u64,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    sessions: Vec<SavedSession>,
}

/// The session file.
#[derive(Clone, Debug)]
pub struct SessionStore {
    path: PathBuf,
}

impl SessionStore {
    /// The store at `path`.
    pub fn at(path: impl Into<PathBuf>) -> SessionStore {
        SessionStore { path: path.into() }
    }

    /// The store in the user's state directory, beside the seats file; `None` when no state
    /// directory is known.
    pub fn user() -> Option<SessionStore> {
        crate::user_dirs::state_dir().map(|d| SessionStore::at(d.join(FILE_NAME)))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> io::Result<Vec<SavedSession>> {
        Ok(crate::user_dirs::read_json::<File>(&self.path)?.map_or_else(Vec::new, |f| f.sessions))
    }

    /// The session kept for `server`, if any.
    pub fn get(&self, server: &str) -> io::Result<Option<SavedSession>> {
        Ok(self.load()?.into_iter().find(|s| s.server == server))
    }

    /// Keeps `session`, replacing the one kept for its server.
    pub fn put(&self, session: SavedSession) -> io::Result<()> {
        let mut sessions = self.load().unwrap_or_default();
        sessions.retain(|s| s.server != session.server);
        sessions.push(session);
        self.write(sessions)
    }

    /// Forgets the session kept for `server`; the file goes once it holds none. Returns
    /// whether there was one.
    pub fn remove(&self, server: &str) -> io::Result<bool> {
        let mut sessions = self.load().unwrap_or_default();
        let before = sessions.len();
        sessions.retain(|s| s.server != server);
        let removed = sessions.len() != before;
        self.write(sessions)?;
        Ok(removed)
    }

    fn write(&self, sessions: Vec<SavedSession>) -> io::Result<()> {
        if sessions.is_empty() {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let text = serde_json::to_vec_pretty(&File { sessions }).map_err(io::Error::other)?;
        crate::user_dirs::write_private(&self.path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::temp::TempDir;

    fn session(server: &str, name: &str) -> SavedSession {
        SavedSession {
            server: server.into(),
            name: name.into(),
            token: format!("{name}-token"),
            expires_ms: 1,
        }
    }

    #[test]
    fn one_session_per_server_and_the_file_goes_with_the_last() {
        let dir = TempDir::new("session");
        let store = SessionStore::at(dir.path().join("jchomp/session.json"));
        assert_eq!(store.get("a").unwrap(), None);
        store.put(session("a", "ann")).unwrap();
        store.put(session("b", "bob")).unwrap();
        store.put(session("a", "Ann2")).unwrap();
        assert_eq!(store.get("a").unwrap().unwrap().name, "Ann2");
        assert_eq!(store.get("b").unwrap().unwrap().token, "bob-token");
        assert!(store.remove("a").unwrap());
        assert!(!store.remove("a").unwrap());
        assert!(store.path().exists());
        assert!(store.remove("b").unwrap());
        assert!(!store.path().exists());
    }

    #[test]
    fn a_damaged_file_is_an_error_to_read_and_is_replaced_by_a_login() {
        let dir = TempDir::new("session");
        let store = SessionStore::at(dir.path().join("session.json"));
        std::fs::write(store.path(), "{not json").unwrap();
        assert!(
            store
                .get("a")
                .unwrap_err()
                .to_string()
                .contains("does not read")
        );
        store.put(session("a", "ann")).unwrap();
        assert_eq!(store.get("a").unwrap().unwrap().name, "ann");
    }
}
