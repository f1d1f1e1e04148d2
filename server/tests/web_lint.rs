//! The web client's JavaScript (`server/web/js`) held to a lint as the Rust is held to clippy:
//! every module parses (`node --check`), and ESLint's recommended rules (the tooling pinned in
//! `server/web-lint/`, installed there by `npm ci` when it is missing) report nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

/// The server crate's folder.
fn server_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every JavaScript file of the web client, in name order.
fn web_js() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(server_dir().join("web/js"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "js"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no JavaScript in server/web/js");
    files
}

/// Starts `cmd`; node and npm are part of the build, so a missing one fails the test.
fn spawn(cmd: &mut Command) -> std::process::Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "`{}` could not be started ({e}): node 20 and npm are needed to test this \
                 project (they check the web client's JavaScript); install them and run again",
                cmd.get_program().to_string_lossy()
            )
        })
}

/// Runs `cmd` with `input` on its standard input and waits for it.
fn run(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = spawn(cmd);
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// What a command printed, both streams.
fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Installs the pinned lint tooling unless `node_modules` already holds the lock file's
/// packages (npm writes `node_modules/.package-lock.json` once an install is complete).
fn install(lint: &Path) {
    let installed = modified(&lint.join("node_modules/.package-lock.json"));
    let locked = modified(&lint.join("package-lock.json"));
    if installed.is_some() && installed >= locked {
        return;
    }
    let out = run(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(lint),
        b"",
    );
    assert!(
        out.status.success(),
        "`npm ci` in server/web-lint failed:\n{}",
        printed(&out)
    );
}

#[test]
fn every_module_parses() {
    for file in web_js() {
        // From standard input as a module: Node 20 passes `node --check FILE` on any file
        // with `import` in it, however broken the rest is.
        let out = run(
            Command::new("node").args(["--check", "--input-type=module"]),
            &fs::read(&file).unwrap(),
        );
        assert!(
            out.status.success(),
            "{} does not parse:\n{}",
            file.display(),
            printed(&out)
        );
    }
}

#[test]
fn eslint_reports_nothing() {
    let lint = server_dir().join("web-lint");
    install(&lint);
    let out = run(
        Command::new("node")
            .arg(lint.join("node_modules/eslint/bin/eslint.js"))
            .arg("--config")
            .arg(lint.join("eslint.config.js"))
            .args(["--max-warnings", "0", "js"])
            .current_dir(server_dir().join("web")),
        b"",
    );
    assert!(
        out.status.success(),
        "eslint reports problems in server/web/js:\n{}",
        printed(&out)
    );
}
