//! What the OpenSpiel tests share: the Python with OpenSpiel installed, the folder of the
//! OpenSpiel package and engine, and a child process spoken to one line at a time, every read
//! bounded in time.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// `clients/engines/openspiel`: the `jchomp_openspiel` package and `engine.py`.
pub fn package_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../clients/engines/openspiel")
}

/// A Python program run from [`package_dir`], its standard output read line by line.
pub struct PyProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl PyProcess {
    /// Starts the OpenSpiel environment's Python (made on first use) with `args`.
    pub fn python(args: &[&str]) -> PyProcess {
        let python = jchomp_testkit::venv::openspiel_python();
        let mut child = Command::new(&python)
            .args(args)
            .current_dir(package_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        PyProcess {
            child,
            stdin,
            lines,
        }
    }

    /// Writes one line.
    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line, failing the test when none comes within `within`.
    pub fn read(&mut self, within: Duration) -> String {
        self.lines
            .recv_timeout(within)
            .unwrap_or_else(|e| panic!("no line from the Python program within {within:?}: {e}"))
    }

    /// Waits up to `within` for the program to exit; its exit status.
    #[allow(dead_code)] // not every test that shares this module waits
    pub fn wait(&mut self, within: Duration) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running after {within:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for PyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
