//! The user's directories as the XDG base directory convention names them: the data directory
//! (the classic database) and the state directory (the seats the client holds, its login
//! session), and [`write_private`], how files there are written.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `$VAR` if it is an absolute path, else `~/FALLBACK`, each with `jchomp` appended; `None`
/// when neither is known.
fn jchomp_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    let abs = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let base = abs(var).or_else(|| abs("HOME").map(|h| h.join(fallback)))?;
    Some(base.join("jchomp"))
}

/// `jchomp` in the user's data directory (`$XDG_DATA_HOME`, else `~/.local/share`).
pub fn data_dir() -> Option<PathBuf> {
    jchomp_dir("XDG_DATA_HOME", ".local/share")
}

/// `jchomp` in the user's state directory (`$XDG_STATE_HOME`, else `~/.local/state`).
pub fn state_dir() -> Option<PathBuf> {
    jchomp_dir("XDG_STATE_HOME", ".local/state")
}

/// The JSON document in the file at `path`; none if there is no such file. A file that does not
/// read as a `T` is an error naming the file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> io::Result<Option<T>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} does not read: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` anew, readable and writable by the user alone (mode 0600 on Unix),
/// through a temporary file beside it so that a crash leaves the old file or the new one. The
/// directory is made if it is missing.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    // The mode is given when the file is made, so the old temporary file (a crash's) goes first.
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::temp::TempDir;

    #[test]
    fn private_files_replace_the_old_one_and_are_the_users_alone() {
        let dir = TempDir::new("private");
        let path = dir.path().join("state/jchomp/f.json");
        write_private(&path, b"one").unwrap();
        write_private(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert!(!dir.path().join("state/jchomp/f.json.tmp").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        }
    }
}
