//! Signals to a test's child processes by pid: pause (SIGSTOP), continue (SIGCONT) and crash
//! (SIGKILL), for fault tests of servers (a database, a node) that the test started.

use std::process::Command;

/// A signal a test sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGSTOP: the process is paused; its connections stay open and unanswered.
    Stop,
    /// SIGCONT: a paused process goes on.
    Cont,
    /// SIGKILL: the process dies at once (`kill -9`).
    Kill,
}

/// Sends `signal` to process `pid`; panics if `kill` fails (no such process).
pub fn send(pid: u32, signal: Signal) {
    let name = match signal {
        Signal::Stop => "-STOP",
        Signal::Cont => "-CONT",
        Signal::Kill => "-KILL",
    };
    let status = Command::new("kill")
        .arg(name)
        .arg(pid.to_string())
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
    assert!(status.success(), "kill {name} {pid} failed");
}
