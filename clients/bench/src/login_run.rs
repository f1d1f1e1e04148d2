//! The login mode's two runs: [`run_logins`] — logins a second with the right password, and per
//! CPU-second of the server — and [`run_flood`] — the game load measured before a flood of
//! wrong passwords and again during it, against the same server.

use super::login::{self, LOGGED_IN, LoginTally};
use super::plan::{Load, Shape};
use super::process::cpu_time;
use super::run::{LoadReport, Servers, run_load};
use super::socket::Target;
use super::stats::LatencySummary;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// A logins-a-second run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginPlan {
    /// Connections logging in at once.
    pub connections: usize,
    /// Accounts registered first and logged in to in turn.
    pub accounts: usize,
    /// Time logged in before measuring.
    pub warmup: Duration,
    /// Time measured.
    pub duration: Duration,
}

/// What a logins-a-second run measured.
#[derive(Clone, Debug)]
pub struct LoginReport {
    /// The plan it ran.
    pub plan: LoginPlan,
    /// The answers within the window.
    pub tally: LoginTally,
    /// Their latencies.
    pub latency: LatencySummary,
    /// The server's CPU time over the window, when its process is known.
    pub server_cpu: Option<Duration>,
}

impl LoginReport {
    /// Logins completed within the window.
    pub fn logins(&self) -> u64 {
        self.tally.count(LOGGED_IN)
    }

    /// Logins completed a second.
    pub fn per_second(&self) -> f64 {
        self.logins() as f64 / self.plan.duration.as_secs_f64().max(1e-9)
    }

    /// Logins completed per second of the server's CPU time.
    pub fn per_cpu_second(&self) -> Option<f64> {
        let cpu = self.server_cpu?.as_secs_f64();
        (cpu > 0.0).then(|| self.logins() as f64 / cpu)
    }
}

/// Loopback source addresses the login connections move through (127.0.0.1–255): each makes
/// at most the server's per-address attempts a minute.
const LOGIN_ADDRS: u8 = u8::MAX;

/// Registers `plan.accounts` accounts on the first server, then has `plan.connections`
/// connections log in to them as fast as they are answered, and counts the window's answers
/// and the server's CPU time. A connection throttled for its address moves to the next
/// loopback address.
pub async fn run_logins(servers: &Servers, plan: LoginPlan) -> anyhow::Result<LoginReport> {
    let first = servers.targets.first().ok_or(NoServer)?;
    let target = Arc::new(Target {
        source_addrs: LOGIN_ADDRS,
        ..first.clone()
    });
    let pid = servers.processes.first().map(|p| p.pid);
    let next = Arc::new(AtomicUsize::new(0));
    let names: Arc<Vec<String>> = Arc::new(
        (0..plan.accounts)
            .map(|i| format!("b{}x{i}", std::process::id()))
            .collect(),
    );
    login::register(&target, next.fetch_add(1, Ordering::Relaxed), &names).await?;
    let start = Instant::now() + plan.warmup;
    let end = start + plan.duration;
    let mut set = JoinSet::new();
    for _ in 0..plan.connections {
        let (target, next, names) = (target.clone(), next.clone(), names.clone());
        set.spawn(async move { login::log_in_until(&target, &next, &names, (start, end)).await });
    }
    tokio::time::sleep_until(start).await;
    let cpu0 = pid.and_then(cpu_time);
    tokio::time::sleep_until(end).await;
    let cpu1 = pid.and_then(cpu_time);
    let mut tally = collect(set).await;
    let latency = std::mem::take(&mut tally.latencies).summary();
    Ok(LoginReport {
        plan,
        tally,
        latency,
        server_cpu: cpu0.zip(cpu1).map(|(a, b)| b.saturating_sub(a)),
    })
}

/// The flood beside the games.
#[derive(Clone, Debug, PartialEq)]
pub struct FloodPlan {
    /// Flood connections.
    pub connections: usize,
    /// Loopback source addresses they are spread over (1: every one from 127.0.0.1).
    pub addrs: u8,
    /// Attempts a second per flood connection at most.
    pub rate: f64,
}

/// What a flood run measured: the same game load before and during the flood.
#[derive(Clone, Debug)]
pub struct FloodReport {
    /// The flood.
    pub plan: FloodPlan,
    /// The games without a flood.
    pub before: LoadReport,
    /// The games during the flood.
    pub during: LoadReport,
    /// Every flood attempt's answer.
    pub flood: LoginTally,
    /// How long the flood went on.
    pub length: Duration,
}

impl FloodReport {
    /// The games' latency percentile `at` during the flood ÷ before it.
    pub fn ratio(&self, at: impl Fn(&LatencySummary) -> Duration) -> f64 {
        at(&self.during.latency).as_secs_f64() / at(&self.before.latency).as_secs_f64().max(1e-9)
    }
}

/// Runs the game `load` with `shape` against `servers`, then again while the flood of `plan`
/// logs in with wrong passwords to the first server.
pub async fn run_flood(
    servers: &Servers,
    load: Load,
    shape: Shape,
    plan: FloodPlan,
) -> anyhow::Result<FloodReport> {
    let first = servers.targets.first().ok_or(NoServer)?;
    let before = run_load(servers.clone(), load.clone(), shape.clone()).await;
    let target = Arc::new(Target {
        source_addrs: plan.addrs.max(1),
        ..first.clone()
    });
    let (stop, stopped) = watch::channel(false);
    let mut set = JoinSet::new();
    let began = Instant::now();
    for n in 0..plan.connections {
        let (target, stopped, rate) = (target.clone(), stopped.clone(), plan.rate);
        set.spawn(async move { login::flood_until(&target, n, rate, stopped).await });
    }
    let during = run_load(servers.clone(), load, shape).await;
    let _ = stop.send(true);
    let flood = collect(set).await;
    Ok(FloodReport {
        plan,
        before,
        during,
        flood,
        length: began.elapsed(),
    })
}

/// Every worker's tally together.
async fn collect(mut set: JoinSet<LoginTally>) -> LoginTally {
    let mut tally = LoginTally::default();
    while let Some(done) = set.join_next().await {
        match done {
            Ok(t) => tally.merge(t),
            Err(e) => tally.errors.add("login task failed", e),
        }
    }
    tally
}

/// A run given no server.
#[derive(Debug, thiserror::Error)]
#[error("no server to log in to")]
struct NoServer;
