//! Temporary directories for tests: unique per call, removed when the guard is dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh, empty directory under the system's temporary directory, removed on drop (unless
/// [`TempDir::keep`] was called).
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    /// A new empty directory whose name starts with `jchomp-{tag}-`.
    pub fn new(tag: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("jchomp-{tag}-{}-{nanos}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        TempDir { path, keep: false }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leaves the directory on disk when dropped; returns its path.
    pub fn keep(mut self) -> PathBuf {
        self.keep = true;
        self.path.clone()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A fresh, empty directory that is not removed by itself (for a server's data directory that
/// must outlive a restart); the caller removes it.
pub fn temp_dir(tag: &str) -> PathBuf {
    TempDir::new(tag).keep()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dir_is_new_and_goes_on_drop() {
        let a = TempDir::new("t");
        let b = TempDir::new("t");
        assert_ne!(a.path(), b.path());
        assert!(a.path().is_dir());
        let p = a.path().to_path_buf();
        drop(a);
        assert!(!p.exists());
        let kept = b.keep();
        assert!(kept.is_dir());
        std::fs::remove_dir_all(kept).unwrap();
    }
}
