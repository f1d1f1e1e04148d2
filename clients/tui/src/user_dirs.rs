//! The user's directories as the XDG base directory convention names them: the data directory
//! (the classic database) and the state directory (the seats the client holds).

use std::path::PathBuf;

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
