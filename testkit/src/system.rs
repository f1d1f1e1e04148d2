//! Programs from the operating system's packages that some tests start for real (a browser, a
//! database server, the interpreters of the example engines): found where the packages put
//! them, or installed from Debian's packages with `apt-get` the first time a test needs them, so
//! that the README's test command does all set-up on a fresh machine and no such test is ever
//! skipped.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A program some test needs, and the Debian packages that provide it.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    /// The executable's file name, e.g. `chromium`.
    pub name: &'static str,
    /// The packages that install it (and whatever else the test needs beside it).
    pub packages: &'static [&'static str],
    /// Directories searched before the `PATH`. A directory whose last part is `*` stands for
    /// each of its parent's subdirectories, newest name first, with `bin` appended (e.g.
    /// `/usr/lib/postgresql/*` finds `/usr/lib/postgresql/15/bin/postgres`).
    pub dirs: &'static [&'static str],
}

/// Debian's Chromium, driven headless by the browser tests.
pub const CHROMIUM: Program = Program {
    name: "chromium",
    packages: &["chromium", "chromium-driver"],
    dirs: &[],
};

/// Debian's Firefox ESR, driven headless over WebDriver BiDi by the browser tests.
pub const FIREFOX: Program = Program {
    name: "firefox-esr",
    packages: &["firefox-esr"],
    dirs: &[],
};

/// The WebDriver server for Debian's Chromium.
pub const CHROMEDRIVER: Program = Program {
    name: "chromedriver",
    packages: &["chromium", "chromium-driver"],
    dirs: &[],
};

/// PostgreSQL's server, from Debian's `postgresql` package (outside the `PATH`, in
/// `/usr/lib/postgresql/VERSION/bin`).
pub const POSTGRES: Program = Program {
    name: "postgres",
    packages: &["postgresql"],
    dirs: &["/usr/lib/postgresql/*"],
};

/// PostgreSQL's `initdb`, which creates a database cluster, beside [`POSTGRES`].
pub const INITDB: Program = Program {
    name: "initdb",
    packages: &["postgresql"],
    dirs: &["/usr/lib/postgresql/*"],
};

/// The Redis server, from Debian's `redis-server` package.
pub const REDIS_SERVER: Program = Program {
    name: "redis-server",
    packages: &["redis-server"],
    dirs: &[],
};

/// Python 3, which runs the example engine `clients/engines/python/engine.py`.
pub const PYTHON3: Program = Program {
    name: "python3",
    packages: &["python3"],
    dirs: &[],
};

/// Node.js, which runs the example engine `clients/engines/node/engine.js`.
pub const NODE: Program = Program {
    name: "node",
    packages: &["nodejs"],
    dirs: &[],
};

/// The path of `program`, installing its packages first when it is missing. Panics, saying
/// what to do, when it cannot be installed: a test that needs it must fail, not skip.
pub fn require(program: Program) -> PathBuf {
    if let Some(path) = find(program) {
        return path;
    }
    // One installer at a time across test threads and test binaries: apt holds its own lock
    // and refuses a second apt-get instead of waiting for it.
    let _lock = exclusive(&std::env::temp_dir().join("jchomp-os-packages.lock"));
    if let Some(path) = find(program) {
        return path;
    }
    install(program.packages);
    find(program).unwrap_or_else(|| {
        panic!(
            "installed {:?} but still cannot find `{}`",
            program.packages, program.name
        )
    })
}

/// Opens (creating it if need be) and locks the file at `path` for this process alone, waiting
/// for any other holder: the lock is held until the returned file is dropped.
pub(crate) fn exclusive(path: &Path) -> std::fs::File {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("cannot lock {}: {e}", path.display()));
    file
}

/// Where `program` is, if it is installed.
pub fn find(program: Program) -> Option<PathBuf> {
    for dir in program.dirs {
        for candidate in expand(Path::new(dir)) {
            let path = candidate.join(program.name);
            if is_executable(&path) {
                return Some(path);
            }
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program.name))
        .find(|path| is_executable(path))
}

fn expand(dir: &Path) -> Vec<PathBuf> {
    if dir.file_name().is_some_and(|name| name == "*") {
        let Some(parent) = dir.parent() else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path().join("bin"))
            .collect();
        // Newest version first: compare the numbers as numbers where they are numbers.
        found.sort_by_key(|path| {
            let version = path
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .and_then(|n| n.parse::<u32>().ok());
            std::cmp::Reverse(version)
        });
        found
    } else {
        vec![dir.to_path_buf()]
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `apt-get update` then `apt-get install` of `packages`, as root or through `sudo -n`.
fn install(packages: &[&str]) {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0"));
    let apt = |args: &[&str]| {
        let mut command = if root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.args(["-n", "apt-get"]);
            sudo
        };
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(std::process::Stdio::null());
        eprintln!("test set-up: apt-get {}", args.join(" "));
        let status = command.status().unwrap_or_else(|e| {
            panic!("cannot run apt-get to install {packages:?} ({e}); install them by hand")
        });
        assert!(
            status.success(),
            "apt-get {} failed ({status}); install {packages:?} by hand",
            args.join(" ")
        );
    };
    apt(&["update", "-q"]);
    let mut args = vec!["install", "-y", "-q", "--no-install-recommends"];
    args.extend_from_slice(packages);
    apt(&args);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_program_on_the_path() {
        let sh = Program {
            name: "sh",
            packages: &[],
            dirs: &[],
        };
        assert!(find(sh).is_some_and(|p| p.ends_with("sh")));
    }

    #[test]
    fn a_star_stands_for_each_versioned_subdirectory_newest_first() {
        let root = crate::temp::TempDir::new("system");
        for version in ["9", "15", "13"] {
            let bin = root.path().join(version).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            let exe = bin.join("tool");
            std::fs::write(&exe, "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let dir: &'static str = Box::leak(format!("{}/*", root.path().display()).into_boxed_str());
        let dirs: &'static [&'static str] = Box::leak(vec![dir].into_boxed_slice());
        let tool = Program {
            name: "tool",
            packages: &[],
            dirs,
        };
        assert_eq!(find(tool), Some(root.path().join("15/bin/tool")));
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let none = Program {
            name: "no-such-program-jchomp",
            packages: &[],
            dirs: &["/nonexistent/*"],
        };
        assert_eq!(find(none), None);
    }
}
