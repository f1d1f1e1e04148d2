//! [`run_load`]: one load run — open every connection, hold them, play (or echo) through the
//! warm-up and the measurement window while sampling each second, stop, and collect the
//! tables' tallies into a [`LoadReport`].

use super::cluster::RedisCounter;
use super::durability::{self, Durability, Scrape};
use super::echo;
use super::fault::{self, Fault};
use super::plan::{Live, Load, Shape, Stage, StageWatch, Window, fault_node_of, node_of};
use super::process::{cpu_time, rss_kib};
use super::socket::{ConnectError, Target, Ws, connect};
use super::stats::{LatencySummary, Tally};
use super::survive::{self, SurviveRun};
use super::table::{self, TableRun};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Time tables get to stop after [`Stage::Halt`] before they are aborted.
const HALT_WAIT: Duration = Duration::from_secs(3);

/// A process whose CPU time and memory a run reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watched {
    /// What it is (`server`, `node 1`, `redis`).
    pub name: String,
    /// Its process id.
    pub pid: u32,
}

/// What a run loads and what it watches meanwhile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Servers {
    /// Where connections go: one server, or the nodes of a cluster, which each room's seats
    /// are split across (`node_of`).
    pub targets: Vec<Target>,
    /// The processes whose CPU time and memory are read: the server, or every node and Redis.
    pub processes: Vec<Watched>,
    /// A Redis (`redis://…`) whose commands processed are counted over the window.
    pub redis: Option<String>,
}

impl Servers {
    /// One server at `target`, whose process is `pid` if known.
    pub fn one(target: Target, pid: Option<u32>) -> Servers {
        Servers {
            targets: vec![target],
            processes: pid
                .map(|pid| Watched {
                    name: "server".to_owned(),
                    pid,
                })
                .into_iter()
                .collect(),
            redis: None,
        }
    }
}

/// The summed resident memory of `processes` in KiB, if every one is readable.
fn total_rss(processes: &[Watched]) -> Option<u64> {
    if processes.is_empty() {
        return None;
    }
    processes.iter().map(|p| rss_kib(p.pid)).sum()
}

/// The server's resident memory at the points of a run, in KiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rss {
    /// Before any connection.
    pub base: u64,
    /// With every connection open, before play.
    pub held: u64,
    /// The largest value sampled during play.
    pub peak: u64,
}

/// What one load run measured.
#[derive(Clone, Debug)]
pub struct LoadReport {
    /// `game` or `echo`.
    pub(crate) load: &'static str,
    /// Connections per room (or echo group).
    pub(crate) seats: usize,
    /// Rooms (or echo groups) run.
    pub tables: usize,
    /// Connections opened.
    pub connected: usize,
    /// Time taken to open them.
    pub(crate) connect_time: Duration,
    /// Connections still open when the window closed.
    pub(crate) open_at_end: usize,
    /// Length of the measurement window.
    pub(crate) window: Duration,
    /// Moves (or echoes) answered in each second of the window.
    pub(crate) per_second: Vec<u64>,
    /// Rooms with a game in play, sampled each second of the window.
    pub(crate) playing: Vec<usize>,
    /// Every table's counts together.
    pub tally: Tally,
    /// Latency percentiles of the window's moves.
    pub latency: LatencySummary,
    /// Latency percentiles of the window's moves that ended a game.
    pub(crate) final_latency: LatencySummary,
    /// The servers' memory (every watched process together), when their processes are known.
    pub(crate) rss: Option<Rss>,
    /// Tables that had to be aborted (their counts are missing).
    pub aborted: usize,
    /// CPU cores the servers used over the window (CPU time ÷ window; every watched process
    /// together), when their processes are known.
    pub(crate) server_cores: Option<f64>,
    /// The same for each watched process, by name.
    pub(crate) process_cores: Vec<(String, f64)>,
    /// Servers the seats were split across (1: one server).
    pub nodes: usize,
    /// Commands Redis processed over the window, when a Redis was watched.
    pub redis_commands: Option<u64>,
    /// Against several nodes: latency of the window's moves by seats on their room's node.
    pub owner_node_latency: LatencySummary,
    /// Against several nodes: latency of the window's moves by seats on another node.
    pub other_node_latency: LatencySummary,
    /// What the servers' disks did over the window (journal appends and the rooms' waits for
    /// durability), when every server answered `/metrics`.
    pub durability: Option<Durability>,
    /// CPUs of this machine, which the servers and the load generator share.
    pub(crate) cpus: usize,
    /// CPU cores this load generator used over the window.
    pub(crate) client_cores: Option<f64>,
    /// The fault struck during the window, if any (what the players lived through is in
    /// `tally.survival`).
    pub fault: Option<Fault>,
}

impl LoadReport {
    /// Moves (or echoes) answered per second over the window.
    pub fn rate(&self) -> f64 {
        self.tally.in_window as f64 / self.window.as_secs_f64().max(1e-9)
    }

    /// Redis commands per move (or message) over the window, when a Redis was watched.
    pub fn redis_per_move(&self) -> Option<f64> {
        Some(self.redis_commands? as f64 / self.tally.in_window.max(1) as f64)
    }

    /// Server CPU time per move (or message) over the window, in µs, for a number of cores.
    pub(crate) fn cpu_per_move(&self, cores: f64) -> f64 {
        cores * self.window.as_secs_f64() * 1e6 / (self.tally.in_window.max(1) as f64)
    }

    /// Server memory per held connection in KiB: (held − base) / connections.
    pub(crate) fn kib_per_connection(&self) -> Option<f64> {
        let rss = self.rss?;
        (self.connected > 0)
            .then(|| rss.held.saturating_sub(rss.base) as f64 / self.connected as f64)
    }

    /// Games started and not seen to finish.
    pub fn unfinished(&self) -> u64 {
        self.tally
            .games_started
            .saturating_sub(self.tally.games_finished)
    }
}

/// Everything the tables of one run share.
struct Ctx {
    targets: Vec<Target>,
    load: Load,
    shape: Shape,
    live: Live,
    connect_slots: Semaphore,
}

/// Runs `load` against `servers` with `shape`, reading the watched processes' memory and CPU
/// time and Redis's command count. Returns when every table has stopped (at most the drain
/// time plus a few seconds after the window).
pub async fn run_load(servers: Servers, load: Load, shape: Shape) -> LoadReport {
    let Servers {
        targets,
        processes,
        redis,
    } = servers;
    let nodes = targets.len().max(1);
    let seats = load.seats().max(1);
    let tables = shape.connections / seats;
    let ctx = Arc::new(Ctx {
        connect_slots: Semaphore::new(shape.connect_parallel.max(1)),
        targets,
        load,
        shape,
        live: Live::default(),
    });
    let base = total_rss(&processes);
    let (stage_tx, stage_rx) = watch::channel(Stage::Connecting);
    let mut set = JoinSet::new();
    let began = Instant::now();
    for ix in 0..tables {
        set.spawn(table_task(ix, ctx.clone(), stage_rx.clone()));
    }
    let live = &ctx.live;
    let total = tables * seats;
    let connect_deadline = began + ctx.shape.connect_deadline;
    while live.connected.load(Ordering::Relaxed) + live.connect_failed.load(Ordering::Relaxed)
        < total
        && Instant::now() < connect_deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let connect_time = began.elapsed();
    // Let the server settle (its handshakes finished, its tasks parked) before reading memory.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held = total_rss(&processes);
    let mut counter = match &redis {
        Some(url) => RedisCounter::connect(url).await,
        None => None,
    };
    let start = Instant::now() + ctx.shape.warmup;
    let window = Window {
        start,
        end: start + ctx.shape.duration,
    };
    let _ = stage_tx.send(Stage::Run(window));
    let struck = ctx
        .shape
        .fault
        .map(|s| tokio::spawn(fault::strike(s.fault, s.pid, start + s.fault.at)));
    tokio::time::sleep_until(start).await;
    let me = std::process::id();
    let scrapes0 = scrape_all(&ctx.targets).await;
    let cpu0: Vec<Option<Duration>> = processes.iter().map(|p| cpu_time(p.pid)).collect();
    let me0 = cpu_time(me);
    let commands0 = match &mut counter {
        Some(c) => c.commands().await,
        None => None,
    };
    let mut per_second = Vec::new();
    let mut playing = Vec::new();
    let mut peak = held.unwrap_or(0);
    let mut last = live.answered.load(Ordering::Relaxed);
    let mut tick = start;
    while tick < window.end {
        tick = (tick + Duration::from_secs(1)).min(window.end);
        tokio::time::sleep_until(tick).await;
        let now = live.answered.load(Ordering::Relaxed);
        per_second.push(now - last);
        last = now;
        playing.push(live.playing.load(Ordering::Relaxed));
        if let Some(r) = total_rss(&processes) {
            peak = peak.max(r);
        }
    }
    // A last partial second says little; keep whole seconds only when there are some.
    if per_second.len() > 1 && ctx.shape.duration.subsec_nanos() != 0 {
        per_second.pop();
    }
    let open_at_end = live.open.load(Ordering::Relaxed);
    let secs = ctx.shape.duration.as_secs_f64().max(1e-9);
    let cores =
        |a: Option<Duration>, b: Option<Duration>| Some(b?.saturating_sub(a?).as_secs_f64() / secs);
    let process_cores: Vec<(String, f64)> = processes
        .iter()
        .zip(&cpu0)
        .filter_map(|(p, &c0)| Some((p.name.clone(), cores(c0, cpu_time(p.pid))?)))
        .collect();
    let server_cores = (!processes.is_empty() && process_cores.len() == processes.len())
        .then(|| process_cores.iter().map(|(_, c)| c).sum());
    let client_cores = cores(me0, cpu_time(me));
    let durability = match scrapes0 {
        Some(before) => scrape_all(&ctx.targets)
            .await
            .and_then(|after| Durability::between(&before, &after)),
        None => None,
    };
    let redis_commands = match (&mut counter, commands0) {
        (Some(c), Some(n0)) => c.commands().await.map(|n| n.saturating_sub(n0)),
        _ => None,
    };
    let _ = stage_tx.send(Stage::Stop);
    let mut tally = Tally::default();
    if let Some(struck) = struck {
        match struck.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tally.errors.add("fault not struck", e),
            Err(e) => tally.errors.add("fault not struck", e),
        }
    }
    let drain_until = Instant::now() + ctx.shape.drain;
    collect(&mut set, &mut tally, drain_until).await;
    let _ = stage_tx.send(Stage::Halt);
    collect(&mut set, &mut tally, Instant::now() + HALT_WAIT).await;
    let aborted = set.len();
    set.abort_all();
    let latency = std::mem::take(&mut tally.latencies).summary();
    let final_latency = std::mem::take(&mut tally.final_latencies).summary();
    let owner_node_latency = std::mem::take(&mut tally.owner_node_latencies).summary();
    let other_node_latency = std::mem::take(&mut tally.other_node_latencies).summary();
    LoadReport {
        load: ctx.load.name(),
        seats,
        tables,
        connected: live.connected.load(Ordering::Relaxed),
        connect_time,
        open_at_end,
        window: ctx.shape.duration,
        per_second,
        playing,
        tally,
        latency,
        final_latency,
        rss: base.zip(held).map(|(base, held)| Rss {
            base,
            held,
            peak: peak.max(held),
        }),
        aborted,
        server_cores,
        process_cores,
        nodes,
        redis_commands,
        owner_node_latency,
        other_node_latency,
        client_cores,
        durability,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        fault: ctx.shape.fault.map(|s| s.fault),
    }
}

/// The durability histograms of every target, if each answers `/metrics` (a JChomp server
/// does; an echo server does not).
async fn scrape_all(targets: &[Target]) -> Option<Vec<Scrape>> {
    let mut out = Vec::with_capacity(targets.len());
    for t in targets {
        out.push(durability::scrape(t.addr).await?);
    }
    Some(out)
}

/// Adds the tallies of the tables that end before `until`.
async fn collect(set: &mut JoinSet<Tally>, tally: &mut Tally, until: Instant) {
    while !set.is_empty() {
        match tokio::time::timeout_at(until, set.join_next()).await {
            Ok(Some(Ok(t))) => tally.merge(t),
            Ok(Some(Err(e))) => tally.errors.add("table task failed", e),
            Ok(None) | Err(_) => break,
        }
    }
}

/// One table: opens its connections, waits for the start, plays or echoes, and returns what
/// it counted.
async fn table_task(ix: usize, ctx: Arc<Ctx>, stage: watch::Receiver<Stage>) -> Tally {
    let mut stage = StageWatch::new(stage);
    let seats = ctx.load.seats().max(1);
    let live = &ctx.live;
    let mut tally = Tally::default();
    let mut conns: Vec<Ws> = Vec::with_capacity(seats);
    let nodes: Vec<usize> = (0..seats)
        .map(|s| match ctx.shape.fault {
            Some(_) => fault_node_of(ix, s, ctx.targets.len()),
            None => node_of(ix, s, ctx.targets.len()),
        })
        .collect();
    for &node in &nodes {
        let opened = match ctx.connect_slots.acquire().await {
            Ok(_permit) => match ctx.targets.get(node) {
                Some(target) => connect(target, ix * seats + conns.len()).await,
                None => Err(ConnectError::NoServer),
            },
            Err(_) => Err(ConnectError::SlotsClosed),
        };
        match opened {
            Ok(ws) => {
                conns.push(ws);
                live.connected.fetch_add(1, Ordering::Relaxed);
                live.open.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                tally.errors.add("connect", e);
                live.connect_failed
                    .fetch_add(seats - conns.len(), Ordering::Relaxed);
                break;
            }
        }
    }
    tally.connected = conns.len();
    let held = conns.len();
    while stage.now() == Stage::Connecting {
        stage.changed().await;
    }
    if let (Stage::Run(window), true) = (stage.now(), held == seats) {
        // Tables start at their own moments spread over the warm-up, so that their games — and
        // the records the server stores as each one ends — do not run in step: in step, every
        // room of a run would end its game in the same instant, which no real server sees.
        let start = Instant::now() + ctx.shape.warmup.mul_f64(spread(ix));
        if !wait_for_start(start, &mut stage).await {
            live.open.fetch_sub(held, Ordering::Relaxed);
            return tally;
        }
        // A paced table moves every pause ÷ seats, so that each seat moves at the rate asked.
        let pace = ctx
            .shape
            .pause()
            .map(|p| (p / seats as u32, Instant::now()));
        match &ctx.load {
            Load::Game { config, json } if ctx.shape.fault.is_some() => {
                let run = SurviveRun {
                    ix,
                    config: **config,
                    json,
                    live,
                    seed: ctx.shape.seed,
                    targets: &ctx.targets,
                    nodes,
                    fault_at: ctx.shape.fault.map(|s| window.start + s.fault.at),
                };
                survive::play(run, conns, window, &mut stage, &mut tally).await;
            }
            Load::Game { config, json } => {
                let run = TableRun {
                    ix,
                    config: **config,
                    json,
                    live,
                    pace,
                    seed: ctx.shape.seed,
                    nodes: ctx.targets.len(),
                };
                table::play(run, conns, window, &mut stage, &mut tally).await;
            }
            Load::Echo { fanout, .. } => {
                let group = fanout.then_some(ix);
                echo::play(conns, group, live, pace, window, &mut stage, &mut tally).await;
            }
        }
    } else {
        drop(conns);
    }
    live.open.fetch_sub(held, Ordering::Relaxed);
    tally
}

/// Where table `ix` falls in [0, 1): consecutive tables spread evenly (the golden-ratio
/// sequence), whatever their number.
fn spread(ix: usize) -> f64 {
    let bits = (ix as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
    bits as f64 / (1u64 << 53) as f64
}

/// Waits until `start`; false if the run stops first.
async fn wait_for_start(start: Instant, stage: &mut StageWatch) -> bool {
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(start) => return true,
            now = stage.changed() => {
                if !matches!(now, Stage::Run(_)) {
                    return false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn tables_spread_evenly_over_the_unit_interval() {
        let n = 1000;
        let mut buckets = [0usize; 10];
        for ix in 0..n {
            let u = spread(ix);
            assert!((0.0..1.0).contains(&u), "{u}");
            buckets[(u * 10.0) as usize] += 1;
        }
        // The golden-ratio sequence puts 100 ± a few in every tenth.
        assert!(
            buckets.iter().all(|&b| (95..=105).contains(&b)),
            "{buckets:?}"
        );
    }
}
