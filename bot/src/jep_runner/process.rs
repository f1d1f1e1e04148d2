//! [`Process`]: one running engine program. Lines go to its standard input and come from its
//! standard output (through the [reader](super::reader)), each request bounded in time and in
//! output; its standard error goes to a log file. The last lines both ways are kept for failure
//! reports, and `--debug` echoes every line to the runner's standard error. Ending it sends
//! `quit`, waits a second, then kills it, and always waits for it (no zombie is left).

use super::reader::{self, Event};
use crate::jep::MAX_LINE;
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::launch::Launch;

/// Lines kept for failure reports.
const HISTORY: usize = 20;
/// Most lines an engine may print in one request (docs/ENGINE.md).
pub const MAX_LINES: u64 = 10_000;
/// Most bytes an engine may print in one request (docs/ENGINE.md).
pub const MAX_BYTES: u64 = 1 << 20;
/// How long an engine has to exit after `quit` before it is killed.
pub const QUIT_GRACE: Duration = Duration::from_secs(1);

/// Why a line could not be had from the engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The deadline passed first.
    #[error("no answer in time")]
    Timeout,
    /// The engine printed too much (why in words).
    #[error("{0}")]
    Flood(String),
    /// The engine's output ended: it exited (how, in words).
    #[error("{0}")]
    Exited(String),
}

/// Where an engine's standard error goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Stderr {
    /// Nowhere.
    #[default]
    Discard,
    /// To the runner's own standard error.
    Inherit,
    /// Appended to this file (made if missing).
    Append(std::path::PathBuf),
}

/// How the runner sees and logs an engine.
#[derive(Clone, Debug, Default)]
pub struct Io {
    /// The name shown in `--debug` lines.
    pub label: String,
    /// Where the engine's standard error goes.
    pub stderr: Stderr,
    /// Echo every line both ways to the runner's standard error.
    pub debug: bool,
}

/// What one request (a handshake, an `isready`, a search) may still read.
#[derive(Clone, Copy, Debug)]
pub struct Allowance {
    until: Option<Instant>,
    lines: u64,
    bytes: u64,
}

impl Allowance {
    /// A request that must be answered within `time` (never if `None`), within the output
    /// limits of one search.
    pub fn new(time: Option<Duration>) -> Allowance {
        Allowance {
            until: time.map(|t| Instant::now() + t),
            lines: MAX_LINES,
            bytes: MAX_BYTES,
        }
    }

    /// Charges one line; the flood it makes, if any.
    fn charge(&mut self, line: &str) -> Result<(), ReadError> {
        let bytes = line.len() as u64 + 1;
        if self.lines == 0 || self.bytes < bytes {
            return Err(ReadError::Flood(format!(
                "more than {MAX_LINES} lines or {MAX_BYTES} bytes in one search"
            )));
        }
        self.lines -= 1;
        self.bytes -= bytes;
        Ok(())
    }
}

/// A running engine.
#[derive(Debug)]
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    started: Instant,
    io: Io,
    history: VecDeque<String>,
    ended: bool,
}

impl Process {
    /// Starts `launch`; the error says why it could not be (no such file, not executable, …).
    pub fn spawn(launch: &Launch, io: Io) -> std::io::Result<Process> {
        let mut command = launch.command();
        match &io.stderr {
            Stderr::Discard => {}
            Stderr::Inherit => {
                command.stderr(std::process::Stdio::inherit());
            }
            Stderr::Append(path) => {
                let log = File::options().create(true).append(true).open(path)?;
                command.stderr(log);
            }
        }
        let mut child = command.spawn()?;
        let stdout = child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        Ok(Process {
            stdin: child.stdin.take(),
            events: reader::spawn(stdout),
            child,
            started: Instant::now(),
            io,
            history: VecDeque::with_capacity(HISTORY),
            ended: false,
        })
    }

    /// The engine's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The last lines both ways, oldest first: `> ` before the runner's, `< ` before the
    /// engine's.
    pub fn last_lines(&self) -> Vec<String> {
        self.history.iter().cloned().collect()
    }

    /// Notes one line of traffic (`dir` is `>` or `<`).
    fn note(&mut self, dir: char, line: &str) {
        let shown: String = line.chars().take(200).collect();
        let entry = format!("{dir} {shown}");
        if self.io.debug {
            let ms = self.started.elapsed().as_millis();
            eprintln!("{} {ms} {entry}", self.io.label);
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(entry);
    }

    /// Writes one line. An error means the engine is gone (its exit, in words).
    pub fn send(&mut self, line: &str) -> Result<(), ReadError> {
        self.note('>', line);
        let written = match &mut self.stdin {
            Some(stdin) => writeln!(stdin, "{line}").and_then(|()| stdin.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        written.map_err(|_| ReadError::Exited(self.exit_status()))
    }

    /// The next line within `allowance`.
    pub fn read(&mut self, allowance: &mut Allowance) -> Result<String, ReadError> {
        let event = match allowance.until {
            None => self
                .events
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
            Some(until) => self
                .events
                .recv_timeout(until.saturating_duration_since(Instant::now())),
        };
        match event {
            Ok(Event::Line(line)) => {
                self.note('<', &line);
                allowance.charge(&line)?;
                Ok(line)
            }
            Ok(Event::TooLong) => Err(ReadError::Flood(format!(
                "a line longer than {MAX_LINE} bytes"
            ))),
            Ok(Event::End) | Err(RecvTimeoutError::Disconnected) => {
                Err(ReadError::Exited(self.exit_status()))
            }
            Err(RecvTimeoutError::Timeout) => Err(ReadError::Timeout),
        }
    }

    /// How the engine ended, in words, waiting a little for it to do so.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.ended = true;
                    return format!("the engine exited ({status})");
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => return "the engine closed its output".to_string(),
            }
        }
    }

    /// Sends `quit`, gives the engine [`QUIT_GRACE`] to exit, then kills it; waits for it in
    /// every case. Returns whether it had to be killed.
    pub fn quit(mut self) -> bool {
        self.end()
    }

    fn end(&mut self) -> bool {
        if self.ended {
            return false;
        }
        self.ended = true;
        if self.stdin.is_some() {
            let _ = self.send("quit");
        }
        // Closing its input tells an engine that reads to the end of it that we are done.
        self.stdin = None;
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return false,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        true
    }

    /// Kills the engine at once and waits for it (after a failure: no grace).
    pub fn kill(mut self) {
        self.ended = true;
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
        // Reaped whatever happened above: a child already waited for is not waited for again.
        let _ = self.child.try_wait();
    }
}
