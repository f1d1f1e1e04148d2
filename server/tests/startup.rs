//! The `jchomp-server` program's start: it says it is listening only once it can serve, so a
//! data directory it cannot open is reported without a "listening" line first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::temp::TempDir;
use std::process::Command;

#[test]
fn a_data_dir_that_cannot_be_opened_is_reported_before_anything_listens() {
    let dir = TempDir::new("server-start");
    // A file where the directory should be: it cannot be created.
    let blocked = dir.path().join("not-a-dir");
    std::fs::write(&blocked, "x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-server"))
        .args(["--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&blocked)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains("listening"), "{stdout}");
    assert!(stderr.contains("cannot open the game database"), "{stderr}");
}
