//! The pairing mode's run ([`run_pairing`]): players seeking in a quick-pairing pool at an even
//! rate, then the same players at the same rate in rooms one of them creates and the others
//! join by id, each phase with the server's CPU time per game; and pairs in which one player
//! waits alone before the second arrives.

use super::pairing::{self, PairTally, WaitTally};
use super::process::cpu_time;
use super::run::Servers;
use super::socket::Target;
use super::stats::{Errors, LatencySummary};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// A pairing run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairingPlan {
    /// Players in each phase (rounded down to whole rooms of the preset).
    pub players: usize,
    /// The preset whose pool they seek in (and whose game the plain rooms play).
    pub preset: String,
    /// Time over which each phase's players arrive, evenly spaced.
    pub duration: Duration,
    /// Pairs in which one player waits alone before the second arrives (one pair at a time).
    pub lone_pairs: usize,
    /// How long the first of such a pair waits alone before the second seeks.
    pub gap: Duration,
}

/// One phase: what its players counted, their latencies and the server's CPU time.
#[derive(Clone, Debug)]
pub struct Phase {
    /// Players, seats and errors.
    pub tally: PairTally,
    /// Send→`joined` of the measured players.
    pub latency: LatencySummary,
    /// The server's CPU time from the first arrival to the last player gone, when known.
    pub server_cpu: Option<Duration>,
    /// Wall time from the first arrival to the last player gone.
    pub length: Duration,
}

impl Phase {
    /// The server's CPU time per game made, when known.
    pub fn cpu_per_game(&self) -> Option<Duration> {
        let games = u32::try_from(self.tally.games).ok().filter(|&g| g > 0)?;
        Some(self.server_cpu? / games)
    }
}

/// What the lone-waiter pairs measured.
#[derive(Clone, Debug)]
pub struct LoneWait {
    /// Send→`joined` of the player who waited first.
    pub first: LatencySummary,
    /// Send→`joined` of the player who arrived second.
    pub second: LatencySummary,
    /// Leaves sent again (see [`PairTally::early_leaves`]).
    pub early_leaves: u64,
    /// What went wrong.
    pub errors: Errors,
}

/// What a pairing run measured.
#[derive(Clone, Debug)]
pub struct PairingReport {
    /// The plan it ran, its players rounded down to whole rooms.
    pub plan: PairingPlan,
    /// Seats a room of the preset has.
    pub seats: usize,
    /// Players seeking in the pool.
    pub pairing: Phase,
    /// The same players creating and joining rooms by id.
    pub plain: Phase,
    /// One player waiting alone, then a second arriving.
    pub lone: LoneWait,
}

impl PairingReport {
    /// Pairing ÷ plain join of a latency percentile `at`.
    pub fn ratio(&self, at: impl Fn(&LatencySummary) -> Duration) -> f64 {
        at(&self.pairing.latency).as_secs_f64() / at(&self.plain.latency).as_secs_f64().max(1e-9)
    }

    /// Pairing ÷ plain join of the server's CPU time per game, when both are known.
    pub fn cpu_ratio(&self) -> Option<f64> {
        let (a, b) = (self.pairing.cpu_per_game()?, self.plain.cpu_per_game()?);
        Some(a.as_secs_f64() / b.as_secs_f64().max(1e-9))
    }

    /// Every error of the run.
    pub fn errors(&self) -> u64 {
        self.pairing.tally.errors.total()
            + self.plain.tally.errors.total()
            + self.lone.errors.total()
    }
}

/// Runs `plan` against the first of `servers`: the lone-waiter pairs, then the players seeking
/// in the pool, then the same number creating and joining rooms, at the same rate.
pub async fn run_pairing(
    servers: &Servers,
    mut plan: PairingPlan,
) -> anyhow::Result<PairingReport> {
    let target = Arc::new(servers.targets.first().ok_or(NoServer)?.clone());
    let pid = servers.processes.first().map(|p| p.pid);
    let config = pairing::preset_config(&target, 0, &plan.preset).await?;
    let seats = usize::try_from(config.players).unwrap_or(1).max(1);
    plan.players -= plan.players % seats;
    let lone = lone_pairs(&target, &plan).await;
    let preset: Arc<str> = plan.preset.as_str().into();
    let mut pairing = phase(pid, &plan, |set, starts| {
        for (n, &start) in starts.iter().enumerate() {
            let (target, preset) = (target.clone(), preset.clone());
            set.spawn(async move { pairing::seek_player(&target, n, &preset, start).await });
        }
    })
    .await;
    // A wave seats whole rooms: every `seats` players seated made one game.
    pairing.tally.games = pairing.tally.seated / seats as u64;
    let config = Arc::new(config);
    let plain = phase(pid, &plan, |set, starts| {
        for (g, group) in starts.chunks(seats).enumerate() {
            let (target, config, group) = (target.clone(), config.clone(), group.to_vec());
            let n = plan.players + g * seats;
            set.spawn(async move { pairing::join_group(&target, n, &config, &group).await });
        }
    })
    .await;
    Ok(PairingReport {
        plan,
        seats,
        pairing,
        plain,
        lone,
    })
}

/// Time between the phase being set up and its first arrival.
const LEAD: Duration = Duration::from_millis(200);

/// One phase: `spawn` starts the players arriving at `starts` (evenly over the plan's
/// duration); their tallies are merged and the server's CPU time read around them.
async fn phase(
    pid: Option<u32>,
    plan: &PairingPlan,
    spawn: impl FnOnce(&mut JoinSet<PairTally>, &[Instant]),
) -> Phase {
    let begin = Instant::now() + LEAD;
    let step = plan.duration / u32::try_from(plan.players.max(1)).unwrap_or(u32::MAX);
    let starts: Vec<Instant> = (0..plan.players)
        .map(|i| begin + step * u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    let mut set = JoinSet::new();
    spawn(&mut set, &starts);
    tokio::time::sleep_until(begin).await;
    let cpu0 = pid.and_then(cpu_time);
    let mut tally = PairTally::default();
    while let Some(done) = set.join_next().await {
        match done {
            Ok(t) => tally.merge(t),
            Err(e) => tally.errors.add("player task failed", e),
        }
    }
    let cpu1 = pid.and_then(cpu_time);
    let latency = std::mem::take(&mut tally.latencies).summary();
    Phase {
        tally,
        latency,
        server_cpu: cpu0.zip(cpu1).map(|(a, b)| b.saturating_sub(a)),
        length: begin.elapsed(),
    }
}

/// The span over which the lone-waiter pairs' starts are spread, relative to the end of the
/// pair before: the server's default wave. A pair that started as soon as the last was seated
/// would start just after a wave every time, and always wait the same.
const WAVE_SPREAD: Duration = Duration::from_secs(1);

/// The lone-waiter pairs, one after another, the `k`th of `K` starting `k/K` of
/// [`WAVE_SPREAD`] after the one before was seated, on connections numbered after both phases'.
async fn lone_pairs(target: &Target, plan: &PairingPlan) -> LoneWait {
    let mut tally = WaitTally::default();
    let pairs = u32::try_from(plan.lone_pairs.max(1)).unwrap_or(u32::MAX);
    for k in 0..plan.lone_pairs {
        let offset = WAVE_SPREAD * u32::try_from(k).unwrap_or(0) / pairs;
        tokio::time::sleep(offset).await;
        let n = 2 * plan.players + 2 * k;
        if let Err(e) = pairing::second_arrives(target, n, &plan.preset, plan.gap, &mut tally).await
        {
            tally.errors.add("lone pair", e);
        }
    }
    LoneWait {
        first: tally.first.summary(),
        second: tally.second.summary(),
        early_leaves: tally.early_leaves,
        errors: tally.errors,
    }
}

/// A run given no server.
#[derive(Debug, thiserror::Error)]
#[error("no server to pair on")]
struct NoServer;
