//! The processes around a load run: the server under test or the echo server started as a
//! child ([`Child`]), their resident memory ([`rss_kib`]), and this process's open-files limit
//! ([`raise_nofile`]).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// Time a child server has to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`), if readable.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// CPU time process `pid` used since it had used `before`, if both are known.
pub fn cpu_since(pid: Option<u32>, before: Option<Duration>) -> Option<Duration> {
    let now = cpu_time(pid?)?;
    Some(now.saturating_sub(before?))
}

/// CPU time used so far by process `pid` (user + system, from `/proc/PID/stat`), if readable.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after it start after the last ')'.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here (0-based, after
    // the state at 0), in clock ticks of 1/100 s (USER_HZ).
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Why a child server could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The program could not be run.
    #[error("cannot start {program:?}: {error}")]
    Start {
        /// The program.
        program: OsString,
        /// Why.
        #[source]
        error: io::Error,
    },
    /// The child has no process id: it is already gone.
    #[error("the child exited at once")]
    ExitedAtOnce,
    /// The child's standard output was not captured.
    #[error("no stdout from the child")]
    NoStdout,
    /// No `ws://` line within the start timeout.
    #[error("the child did not print its address")]
    NoAddress,
    /// This program's own path is not known (to start it again as the echo server).
    #[error("cannot find this program: {0}")]
    CurrentExe(#[source] io::Error),
}

/// A server this tool started; killed (and its data directory removed) when dropped.
#[derive(Debug)]
pub struct Child {
    /// The WebSocket URL it printed.
    pub url: String,
    /// Its process id.
    pub pid: u32,
    child: tokio::process::Child,
    data_dir: Option<PathBuf>,
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        if let Some(d) = &self.data_dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Starts `program args…`, waits for the line it prints with `ws://…` and returns the child.
async fn start(mut cmd: Command, data_dir: Option<PathBuf>) -> Result<Child, ProcessError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|error| ProcessError::Start {
        program: cmd.as_std().get_program().to_owned(),
        error,
    })?;
    let pid = child.id().ok_or(ProcessError::ExitedAtOnce)?;
    let stdout = child.stdout.take().ok_or(ProcessError::NoStdout)?;
    let mut lines = BufReader::new(stdout).lines();
    let url = tokio::time::timeout(START_TIMEOUT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(i) = line.find("ws://") {
                return Some(line[i..].trim().to_owned());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or(ProcessError::NoAddress)?;
    // Keep reading its output so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Child {
        url,
        pid,
        child,
        data_dir,
    })
}

/// Limits for a game server holding `connections` connections in `rooms` rooms under load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerLaunch {
    /// The `jchomp-server` binary.
    pub program: PathBuf,
    /// Connections the server must admit.
    pub connections: usize,
    /// Rooms the server must admit (finished rooms linger until their seats move on).
    pub rooms: usize,
    /// `RUST_LOG` for the server.
    pub log: String,
    /// Serve the server's test-only echo path (`--echo-path`) too.
    pub echo_path: Option<String>,
    /// The server's threads (`--threads`), if asked (else its default).
    pub threads: Option<u16>,
    /// The Redis of the cluster this server is a node of (`--cluster`), if any.
    pub cluster: Option<String>,
}

/// Starts `jchomp-server` on a free loopback port with a fresh data directory and limits
/// that admit the load: connections and rooms as asked (all from one address, so with no
/// per-address cap), and a per-connection rate limit high
/// enough for scripted seats that answer within microseconds.
pub async fn spawn_server(launch: &ServerLaunch) -> Result<Child, ProcessError> {
    let data_dir = std::env::temp_dir().join(format!(
        "jchomp-bench-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let mut cmd = Command::new(&launch.program);
    cmd.args([
        "--addr",
        "127.0.0.1:0",
        "--rate-limit",
        "1000000",
        "--rate-burst",
        "1000000",
    ])
    .arg("--data-dir")
    .arg(&data_dir)
    .arg("--max-connections")
    .arg((launch.connections + 64).to_string())
    // Every simulated player connects from this machine's one address.
    .arg("--max-connections-per-address")
    .arg("0")
    .arg("--max-rooms")
    .arg((2 * launch.rooms + 64).to_string())
    .env("RUST_LOG", &launch.log);
    if let Some(n) = launch.threads {
        cmd.arg("--threads").arg(n.to_string());
    }
    if let Some(url) = &launch.cluster {
        cmd.arg("--cluster").arg(url);
    }
    if let Some(path) = &launch.echo_path {
        cmd.arg("--echo-path").arg(path);
    }
    start(cmd, Some(data_dir)).await
}

/// Starts this program again as a bare echo server (`--serve-echo 127.0.0.1:0`), running
/// `threads` threads if asked (else one per CPU).
pub async fn spawn_echo(threads: Option<u16>) -> Result<Child, ProcessError> {
    let me = std::env::current_exe().map_err(ProcessError::CurrentExe)?;
    let mut cmd = Command::new(me);
    cmd.args(["--serve-echo", "127.0.0.1:0"]);
    if let Some(n) = threads {
        cmd.arg("--threads").arg(n.to_string());
    }
    start(cmd, None).await
}

/// The `jchomp-server` next to this program (cargo builds both into the same directory).
pub fn default_server_bin() -> PathBuf {
    let me = std::env::current_exe().unwrap_or_default();
    me.parent()
        .unwrap_or(Path::new("."))
        .join(format!("jchomp-server{}", std::env::consts::EXE_SUFFIX))
}

/// Raises this process's soft open-files limit as far as the hard limit allows, returning the
/// new limit, or why it could not be read or raised.
pub fn raise_nofile() -> io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_cpu_time() {
        let before = cpu_time(std::process::id()).unwrap();
        let mut x = 0u64;
        for i in 0..50_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        assert!(cpu_time(std::process::id()).unwrap() >= before);
        assert_eq!(cpu_time(u32::MAX), None);
    }

    #[test]
    fn reads_its_own_rss() {
        let kib = rss_kib(std::process::id()).unwrap();
        assert!(kib > 100, "{kib}");
        assert_eq!(rss_kib(u32::MAX), None);
    }
}
