//! A fault struck at one process of a spawned cluster during a run (`--fault`): [`Fault`] (what,
//! and when after the window starts), parsed from `kill@5s`, `pause=12s@5s` or
//! `redis-pause=5s@5s`, and [`strike`], which sends the signals (SIGKILL, or SIGSTOP and later
//! SIGCONT) with `kill`.

use jchomp_engine::duration::{Unit, parse_duration};
use std::fmt;
use std::process::Command;
use std::str::FromStr;
use std::time::Duration;
use tokio::time::Instant;

/// What is done to which process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Node 0 is killed (SIGKILL) and stays dead.
    Kill,
    /// Node 0 is paused (SIGSTOP) for this long, then goes on (SIGCONT).
    Pause(Duration),
    /// The cluster's Redis is paused for this long, then goes on.
    RedisPause(Duration),
}

/// A fault and its moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What is done.
    pub kind: FaultKind,
    /// When, after the measurement window starts.
    pub at: Duration,
}

impl Fault {
    /// Whether it strikes the cluster's Redis (else node 0).
    pub fn strikes_redis(&self) -> bool {
        matches!(self.kind, FaultKind::RedisPause(_))
    }
}

/// A fault and the process it strikes (node 0's or Redis's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strike {
    /// The fault.
    pub fault: Fault,
    /// The process id it strikes.
    pub pid: u32,
}

/// Why a `--fault` is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "expected a fault such as kill@5s, pause=12s@5s or redis-pause=5s@5s (what, then @ and the time after the window starts), got {0:?}"
)]
pub struct FaultError(String);

impl FromStr for Fault {
    type Err = FaultError;

    fn from_str(text: &str) -> Result<Fault, FaultError> {
        let bad = || FaultError(text.to_owned());
        let time = |t: &str| parse_duration(t, Some(Unit::Seconds)).map_err(|_| bad());
        let (what, at) = text.split_once('@').ok_or_else(bad)?;
        let kind = match what.split_once('=') {
            None if what == "kill" => FaultKind::Kill,
            Some(("pause", d)) => FaultKind::Pause(time(d)?),
            Some(("redis-pause", d)) => FaultKind::RedisPause(time(d)?),
            _ => return Err(bad()),
        };
        if matches!(kind, FaultKind::Pause(d) | FaultKind::RedisPause(d) if d.is_zero()) {
            return Err(bad());
        }
        Ok(Fault {
            kind,
            at: time(at)?,
        })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.at.as_secs_f64();
        match self.kind {
            FaultKind::Kill => write!(f, "node 1 killed (SIGKILL) {at} s into the window"),
            FaultKind::Pause(d) => write!(
                f,
                "node 1 paused (SIGSTOP) {at} s into the window for {} s",
                d.as_secs_f64()
            ),
            FaultKind::RedisPause(d) => write!(
                f,
                "Redis paused (SIGSTOP) {at} s into the window for {} s",
                d.as_secs_f64()
            ),
        }
    }
}

/// Sends `signal` (`-KILL`, `-STOP`, `-CONT`) to process `pid` with `kill`; says why it
/// failed. Only one process: 0 and ids that `kill` would read as negative (a process group, or
/// every process for -1) are refused.
fn signal(pid: u32, signal: &str) -> Result<(), String> {
    if pid == 0 || i32::try_from(pid).is_err() {
        return Err(format!("{pid} is not one process's id"));
    }
    match Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
    {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("kill {signal} {pid}: {s}")),
        Err(e) => Err(format!("cannot run kill: {e}")),
    }
}

/// Strikes `fault` at `pid` (node 0's or Redis's) at `at`, and for a pause lets it go on after
/// its time; returns what went wrong, if anything.
pub(crate) async fn strike(fault: Fault, pid: u32, at: Instant) -> Result<(), String> {
    tokio::time::sleep_until(at).await;
    match fault.kind {
        FaultKind::Kill => signal(pid, "-KILL"),
        FaultKind::Pause(d) | FaultKind::RedisPause(d) => {
            signal(pid, "-STOP")?;
            tokio::time::sleep(d).await;
            signal(pid, "-CONT")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_print() {
        let f: Fault = "kill@5s".parse().unwrap();
        assert_eq!(
            f,
            Fault {
                kind: FaultKind::Kill,
                at: Duration::from_secs(5)
            }
        );
        let f: Fault = "pause=12s@2500ms".parse().unwrap();
        assert_eq!(f.kind, FaultKind::Pause(Duration::from_secs(12)));
        assert_eq!(f.at, Duration::from_millis(2500));
        assert!(!f.strikes_redis());
        let f: Fault = "redis-pause=5@5".parse().unwrap();
        assert_eq!(f.kind, FaultKind::RedisPause(Duration::from_secs(5)));
        assert!(f.strikes_redis());
        assert_eq!(
            f.to_string(),
            "Redis paused (SIGSTOP) 5 s into the window for 5 s"
        );
        for bad in [
            "kill",
            "kill=3s@1s",
            "pause@1s",
            "pause=0s@1s",
            "nap=1s@1s",
            "kill@x",
        ] {
            assert!(bad.parse::<Fault>().is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_pause_stops_and_continues_a_process() {
        let mut child = tokio::process::Command::new("sleep")
            .arg("30")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let state = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
            stat[stat.rfind(')').unwrap() + 2..].chars().next().unwrap()
        };
        let fault: Fault = "pause=400ms@0s".parse().unwrap();
        let struck = tokio::spawn(strike(fault, pid, Instant::now()));
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(state(), 'T');
        struck.await.unwrap().unwrap();
        assert_ne!(state(), 'T');
        let kill: Fault = "kill@0s".parse().unwrap();
        strike(kill, pid, Instant::now()).await.unwrap();
        let status = child.wait().await.unwrap();
        assert!(!status.success());
        // Never a process group or every process (`kill -KILL -1`).
        for group in [0, u32::MAX, 1 << 31] {
            assert!(signal(group, "-CONT").is_err(), "{group}");
        }
    }
}
