//! Python virtual environments with packages from PyPI that some tests run for real (OpenSpiel):
//! made once under the build's target directory, the first time a test needs one, so that the
//! README's test command does all set-up on a fresh machine and no such test is ever skipped.

use crate::system::{self, Program};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian's Python 3 with its `venv` module.
pub const PYTHON3: Program = Program {
    name: "python3",
    packages: &["python3", "python3-venv"],
    dirs: &[],
};

/// The OpenSpiel release the project's OpenSpiel games and engine are tested with.
pub const OPEN_SPIEL: &str = "open-spiel==2.0.2";

/// The `python` of a virtual environment that has OpenSpiel ([`OPEN_SPIEL`]) installed.
pub fn openspiel_python() -> PathBuf {
    python_with("openspiel", &[OPEN_SPIEL])
}

/// The `python` of the virtual environment `name`, with `packages` (pinned pip requirements)
/// installed. The environment lives in `venvs/NAME` under the target directory of the running
/// test (the system's temporary directory when that cannot be told) and is made only once: later
/// calls, in this process or another, find it ready. Safe when tests call it at the same time:
/// one makes it under a lock file while the others wait. Panics, saying what to do, when it
/// cannot be made: a test that needs it must fail, not skip.
pub fn python_with(name: &str, packages: &[&str]) -> PathBuf {
    let root = venvs_dir();
    std::fs::create_dir_all(&root)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
    let dir = root.join(name);
    let ready = dir.join("jchomp-ready");
    let wanted = packages.join("\n");
    let is_ready = || std::fs::read_to_string(&ready).is_ok_and(|got| got == wanted);
    let python = dir.join("bin").join("python");
    if is_ready() {
        return python;
    }
    let _lock = system::exclusive(&root.join(format!("{name}.lock")));
    if !is_ready() {
        create(&dir, packages);
        std::fs::write(&ready, &wanted)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", ready.display()));
    }
    python
}

/// `venvs` beside the test binaries' profile directory (`target/venvs` for
/// `target/debug/deps/TEST`), else in the system's temporary directory.
fn venvs_dir() -> PathBuf {
    let exe = std::env::current_exe().ok();
    let deps = exe.as_deref().and_then(Path::parent);
    let target = deps
        .filter(|deps| deps.file_name().is_some_and(|name| name == "deps"))
        .and_then(Path::parent)
        .and_then(Path::parent);
    target
        .map_or_else(
            || std::env::temp_dir().join("jchomp-target"),
            Path::to_path_buf,
        )
        .join("venvs")
}

/// A fresh environment in `dir` (anything there before is removed), then `pip install`.
fn create(dir: &Path, packages: &[&str]) {
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .unwrap_or_else(|e| panic!("cannot remove {}: {e}", dir.display()));
    }
    let python3 = system::require(PYTHON3);
    run(
        Command::new(&python3).arg("-m").arg("venv").arg(dir),
        "python3 -m venv",
        packages,
    );
    let mut pip = Command::new(dir.join("bin").join("python"));
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]);
    pip.args(packages);
    run(&mut pip, "pip install", packages);
}

fn run(command: &mut Command, what: &str, packages: &[&str]) {
    eprintln!("test set-up: {what} (for {packages:?})");
    let status = command
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {what} ({e}); needed to install {packages:?}"));
    assert!(
        status.success(),
        "{what} failed ({status}) while installing {packages:?} into a virtual environment; \
         check the network and PyPI, or install python3-venv"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_live_under_the_target_directory() {
        let dir = venvs_dir();
        let exe = std::env::current_exe().unwrap();
        assert!(dir.ends_with("venvs"), "{}", dir.display());
        let target = dir.parent().unwrap();
        assert!(exe.starts_with(target.join("debug")) || exe.starts_with(target.join("release")));
    }
}
