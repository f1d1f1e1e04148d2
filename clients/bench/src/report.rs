//! The load generator's words: one run's [`LoadReport`] as text ([`describe`]) and the medians
//! of several runs with the ratio to the echo baseline ([`summarize`]).

use super::fault_report;
use super::run::LoadReport;
use super::stats::{Errors, LatencySummary, median};
use std::fmt::Write as _;
use std::time::Duration;

/// A duration in milliseconds, two decimals.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// What a load counts, in words: `moves` in `rooms`, or `messages` in `groups`.
#[derive(Clone, Copy)]
struct Words {
    /// Whether it is the game load (the game's own lines are added).
    game: bool,
    /// What is counted, plural.
    unit: &'static str,
    /// What is counted, singular.
    one: &'static str,
    /// What the connections are grouped in.
    rooms: &'static str,
}

impl Words {
    fn of(r: &LoadReport) -> Words {
        if r.load == "game" {
            Words {
                game: true,
                unit: "moves",
                one: "move",
                rooms: "rooms",
            }
        } else {
            Words {
                game: false,
                unit: "messages",
                one: "message",
                rooms: "groups",
            }
        }
    }
}

/// Several lines describing one run.
pub fn describe(r: &LoadReport) -> String {
    let w = Words::of(r);
    let mut out = String::new();
    connections(&mut out, r, w);
    throughput(&mut out, r, w);
    cpu(&mut out, r, w);
    disk(&mut out, r);
    latency(&mut out, r, w);
    redis(&mut out, r, w);
    if w.game {
        games(&mut out, r);
    }
    if let Some(fault) = r.fault {
        fault_report::describe(&mut out, r, fault);
    }
    trouble(&mut out, r, w);
    memory(&mut out, r);
    out
}

/// The first line: the connections held, the rooms they make and the nodes they are split
/// across (a game: how many rooms played at once).
fn connections(out: &mut String, r: &LoadReport, w: Words) {
    let asked = r.tables * r.seats;
    let _ = write!(
        out,
        "{}: {}/{asked} connections held (opened in {:.1} s; {} open at the end of the window), {} {} of {}",
        r.load,
        r.connected,
        r.connect_time.as_secs_f64(),
        r.open_at_end,
        r.tables,
        w.rooms,
        r.seats,
    );
    if r.nodes > 1 {
        let _ = write!(out, " split across {} nodes", r.nodes);
    }
    if w.game {
        let playing: Vec<f64> = r.playing.iter().map(|&p| p as f64).collect();
        let _ = write!(
            out,
            " (playing at once: median {:.0}, min {})",
            median(&playing).unwrap_or(0.0),
            r.playing.iter().min().copied().unwrap_or(0)
        );
    }
}

/// Moves (or messages) per second over the window, and the spread of its seconds.
fn throughput(out: &mut String, r: &LoadReport, w: Words) {
    let secs: Vec<f64> = r.per_second.iter().map(|&n| n as f64).collect();
    let _ = write!(
        out,
        "\n  {:.0} {}/s over {:.1} s (each second: median {:.0}, min {})",
        r.rate(),
        w.unit,
        r.window.as_secs_f64(),
        median(&secs).unwrap_or(0.0),
        r.per_second.iter().min().copied().unwrap_or(0),
    );
}

/// The CPU cores the servers and the load generator used, and per move (or message), when
/// known; for several server processes, each one's.
fn cpu(out: &mut String, r: &LoadReport, w: Words) {
    let per_op = |cores: f64| r.cpu_per_move(cores);
    match (r.server_cores, r.client_cores) {
        (Some(s), Some(c)) => {
            let servers = if r.process_cores.len() > 1 {
                "servers"
            } else {
                "server"
            };
            let _ = write!(
                out,
                "\n  CPU cores used (of {}): {servers} {s:.2}, load generator {c:.2} (CPU per {}: {servers} {:.1} µs, load generator {:.1} µs)",
                r.cpus,
                w.one,
                per_op(s),
                per_op(c)
            );
            if r.process_cores.len() > 1 {
                let each: Vec<String> = r
                    .process_cores
                    .iter()
                    .map(|(name, c)| format!("{name} {c:.2} cores, {:.1} µs", per_op(*c)))
                    .collect();
                let _ = write!(out, "\n  per process: {}", each.join("; "));
            }
        }
        (None, Some(c)) => {
            let _ = write!(
                out,
                "\n  CPU cores used by the load generator (and any in-process server): {c:.2}"
            );
        }
        _ => {}
    }
}

/// What the servers' disks did over the window, when they said (`/metrics`): journal appends
/// and how long one took, and how long a room waited for durability — beside the CPU line, it
/// tells a disk-bound run from a CPU-bound one.
fn disk(out: &mut String, r: &LoadReport) {
    let Some(d) = &r.durability else {
        return;
    };
    let ms = |secs: Option<f64>| match secs {
        Some(s) if s.is_finite() => format!("≤ {:.2} ms", s * 1e3),
        Some(_) => "above the largest bucket".to_owned(),
        None => "-".to_owned(),
    };
    let _ = write!(
        out,
        "\n  disk: {} journal appends ({:.0} a second), one append p50 {}, p99 {}; {} fdatasyncs ({:.0} a second), one p50 {}, p99 {}; a room's wait for durability p50 {}, p99 {}",
        d.appends,
        d.appends as f64 / r.window.as_secs_f64().max(1e-9),
        ms(d.append_p50),
        ms(d.append_p99),
        d.syncs,
        d.syncs as f64 / r.window.as_secs_f64().max(1e-9),
        ms(d.sync_p50),
        ms(d.sync_p99),
        ms(d.wait_p50),
        ms(d.wait_p99),
    );
}

/// `p50 …{sep}p90 …{sep}p99 …{sep}max …` of `l`.
pub(crate) fn percentiles(l: &LatencySummary, sep: &str) -> String {
    format!(
        "p50 {}{sep}p90 {}{sep}p99 {}{sep}max {}",
        ms(l.p50),
        ms(l.p90),
        ms(l.p99),
        ms(l.max)
    )
}

/// The errors, if any, a line each.
pub(crate) fn error_lines(out: &mut String, errors: &Errors) {
    for (kind, n, first) in errors.iter() {
        let _ = write!(out, "\n    error {kind} ×{n}: {first}");
    }
}

/// Latency percentiles, and across nodes by whether the seat was on its room's node.
fn latency(out: &mut String, r: &LoadReport, w: Words) {
    let l = &r.latency;
    let _ = write!(
        out,
        "\n  latency {}  ({} {})",
        percentiles(l, "  "),
        l.count,
        w.unit
    );
    if r.nodes > 1 {
        let (o, x) = (&r.owner_node_latency, &r.other_node_latency);
        let _ = write!(
            out,
            "\n  by seats on the room's node: p50 {}  p99 {}  ({} moves); on another node: p50 {}  p99 {}  ({} moves)",
            ms(o.p50),
            ms(o.p99),
            o.count,
            ms(x.p50),
            ms(x.p99),
            x.count
        );
    }
}

/// The commands Redis ran over the window, and per move (or message), when it was watched.
fn redis(out: &mut String, r: &LoadReport, w: Words) {
    if let (Some(n), Some(per)) = (r.redis_commands, r.redis_per_move()) {
        let _ = write!(
            out,
            "\n  Redis: {n} commands over the window, {per:.2} per {}",
            w.one
        );
    }
}

/// The game load's own lines: the latency of game-ending moves, and the games started and
/// finished.
fn games(out: &mut String, r: &LoadReport) {
    if r.final_latency.count > 0 {
        let f = &r.final_latency;
        let _ = write!(
            out,
            "\n  of which game-ending moves: p50 {}  p99 {}  max {}  ({} moves)",
            ms(f.p50),
            ms(f.p99),
            ms(f.max),
            f.count
        );
    }
    let _ = write!(
        out,
        "\n  games: {} started, {} finished, {} unfinished",
        r.tally.games_started,
        r.tally.games_finished,
        r.unfinished()
    );
}

/// What went wrong: joins asked again, the errors by kind, the rooms aborted.
fn trouble(out: &mut String, r: &LoadReport, w: Words) {
    if r.tally.joins_again > 0 {
        let _ = write!(
            out,
            "\n  joins asked again: {} (the joining seat's node did not know the room created on another node yet)",
            r.tally.joins_again
        );
    }
    let _ = write!(out, "\n  errors: {}", r.tally.errors.total());
    for (kind, n, first) in r.tally.errors.iter() {
        let _ = write!(out, "\n    {n} × {kind} (first: {first})");
    }
    if r.aborted > 0 {
        let _ = write!(
            out,
            "\n  {} {} did not stop in time and were aborted",
            r.aborted, w.rooms
        );
    }
}

/// The servers' memory before, with every connection held and at its peak, when known.
fn memory(out: &mut String, r: &LoadReport) {
    if let Some(rss) = r.rss {
        let _ = write!(
            out,
            "\n  server memory (VmRSS): {} before connecting, {} with every connection held ({:.1} KiB per connection), peak {} during the run",
            mib(rss.base),
            mib(rss.held),
            r.kib_per_connection().unwrap_or(0.0),
            mib(rss.peak)
        );
    }
}

/// What one run measured: the game load and the baselines asked for.
#[derive(Clone, Debug, Default)]
pub struct RunReports {
    /// The game load against the server.
    pub game: Option<LoadReport>,
    /// The same game load against a cluster, each room's seats split across its nodes.
    pub cluster: Option<LoadReport>,
    /// The same shape against the bare echo server.
    pub echo: Option<LoadReport>,
    /// The same shape against the bare echo server in fan-out mode.
    pub fanout_echo: Option<LoadReport>,
    /// The same shape against the server's own test-only echo path.
    pub server_echo: Option<LoadReport>,
}

/// The medians over several runs: game moves/s, latency, memory per connection, and each
/// run's ratio to the echo baseline measured in the same run.
pub fn summarize(runs: &[RunReports]) -> String {
    let games: Vec<&LoadReport> = runs.iter().filter_map(|r| r.game.as_ref()).collect();
    let mut out = format!("median of {} run(s):", runs.len());
    if !games.is_empty() {
        let _ = write!(
            out,
            "\n  game: {:.0} moves/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; errors {}",
            median_of(&games, LoadReport::rate),
            median_of(&games, |r| r.latency.p50.as_secs_f64() * 1e3),
            median_of(&games, |r| r.latency.p90.as_secs_f64() * 1e3),
            median_of(&games, |r| r.latency.p99.as_secs_f64() * 1e3),
            median_of(&games, |r| r.latency.max.as_secs_f64() * 1e3),
            games.iter().map(|r| r.tally.errors.total()).sum::<u64>(),
        );
        let kib: Vec<f64> = games
            .iter()
            .filter_map(|r| r.kib_per_connection())
            .collect();
        if !kib.is_empty() {
            let median_kib = median(&kib).unwrap_or(0.0);
            let _ = write!(out, "; server memory {median_kib:.1} KiB per connection");
        }
    }
    let clusters: Vec<&LoadReport> = runs.iter().filter_map(|r| r.cluster.as_ref()).collect();
    if let Some(first) = clusters.first() {
        let _ = write!(
            out,
            "\n  cluster of {} nodes: {:.0} moves/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; errors {}",
            first.nodes,
            median_of(&clusters, LoadReport::rate),
            median_of(&clusters, |r| r.latency.p50.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.latency.p90.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.latency.p99.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.latency.max.as_secs_f64() * 1e3),
            clusters.iter().map(|r| r.tally.errors.total()).sum::<u64>(),
        );
        let _ = write!(
            out,
            "\n    moves by seats on the room's node: p50 {:.2} ms, p99 {:.2} ms; on another node: p50 {:.2} ms, p99 {:.2} ms",
            median_of(&clusters, |r| r.owner_node_latency.p50.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.owner_node_latency.p99.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.other_node_latency.p50.as_secs_f64() * 1e3),
            median_of(&clusters, |r| r.other_node_latency.p99.as_secs_f64() * 1e3),
        );
        let per_move: Vec<f64> = clusters.iter().filter_map(|r| r.redis_per_move()).collect();
        if let Some(m) = median(&per_move) {
            let _ = write!(out, "; Redis {m:.2} commands per move");
        }
        let again: u64 = clusters.iter().map(|r| r.tally.joins_again).sum();
        let _ = write!(
            out,
            "\n    joins asked again (the room not yet known on the joining node): {again} in {} runs, for {} games started",
            clusters.len(),
            clusters.iter().map(|r| r.tally.games_started).sum::<u64>()
        );
    }
    cpu_line(&mut out, "game", &games);
    cpu_line(&mut out, "cluster", &clusters);
    let pick = |f: fn(&RunReports) -> Option<&LoadReport>| -> Vec<&LoadReport> {
        runs.iter().filter_map(f).collect()
    };
    baseline(&mut out, "echo", &pick(|r| r.echo.as_ref()));
    baseline(&mut out, "fan-out echo", &pick(|r| r.fanout_echo.as_ref()));
    baseline(
        &mut out,
        "server echo path",
        &pick(|r| r.server_echo.as_ref()),
    );
    let ratio = |a: fn(&RunReports) -> Option<&LoadReport>,
                 b: fn(&RunReports) -> Option<&LoadReport>|
     -> Vec<f64> {
        runs.iter()
            .filter_map(|r| Some(a(r)?.rate() / b(r)?.rate().max(1e-9)))
            .collect()
    };
    let game: fn(&RunReports) -> Option<&LoadReport> = |r| r.game.as_ref();
    let echo: fn(&RunReports) -> Option<&LoadReport> = |r| r.echo.as_ref();
    ratio_line(
        &mut out,
        "server echo path ÷ bare echo",
        ratio(|r| r.server_echo.as_ref(), echo),
    );
    ratio_line(
        &mut out,
        "game moves/s ÷ echo messages/s",
        ratio(game, echo),
    );
    ratio_line(
        &mut out,
        "game moves/s ÷ fan-out echo messages/s",
        ratio(game, |r| r.fanout_echo.as_ref()),
    );
    let cluster: fn(&RunReports) -> Option<&LoadReport> = |r| r.cluster.as_ref();
    ratio_line(
        &mut out,
        "cluster moves/s ÷ one node's",
        ratio(cluster, game),
    );
    let each = |f: fn(&LoadReport) -> Option<f64>| -> Vec<f64> {
        runs.iter()
            .filter_map(|r| Some(f(r.cluster.as_ref()?)? - f(r.game.as_ref()?)?))
            .collect()
    };
    difference_line(
        &mut out,
        "latency p50 added by the cluster",
        "ms",
        each(|r| Some(r.latency.p50.as_secs_f64() * 1e3)),
    );
    difference_line(
        &mut out,
        "latency p99 added by the cluster",
        "ms",
        each(|r| Some(r.latency.p99.as_secs_f64() * 1e3)),
    );
    difference_line(
        &mut out,
        "CPU per move added by the cluster (every process)",
        "µs",
        each(|r| Some(r.cpu_per_move(r.server_cores?))),
    );
    out
}

/// Appends the median CPU per move of a load's runs, in all and for each process, if known.
fn cpu_line(out: &mut String, name: &str, reports: &[&LoadReport]) {
    let known: Vec<&LoadReport> = reports
        .iter()
        .copied()
        .filter(|r| r.server_cores.is_some())
        .collect();
    let Some(first) = known.first() else {
        return;
    };
    let _ = write!(
        out,
        "\n  {name} CPU per move: {:.1} µs in all",
        median_of(&known, |r| r.cpu_per_move(r.server_cores.unwrap_or(0.0)))
    );
    if first.process_cores.len() > 1 {
        for (i, (process, _)) in first.process_cores.iter().enumerate() {
            let us = median_of(&known, |r| {
                r.process_cores
                    .get(i)
                    .map_or(0.0, |(_, cores)| r.cpu_per_move(*cores))
            });
            let _ = write!(out, ", {process} {us:.1} µs");
        }
    }
}

/// Appends the median of per-run differences (cluster − one node) and each run's, if any.
fn difference_line(out: &mut String, name: &str, unit: &str, values: Vec<f64>) {
    if values.is_empty() {
        return;
    }
    let each: Vec<String> = values.iter().map(|v| format!("{v:+.2}")).collect();
    let _ = write!(
        out,
        "\n  {name}: {:+.2} {unit} (each run: {})",
        median(&values).unwrap_or(0.0),
        each.join(", ")
    );
}

/// Appends the medians of one baseline's runs, if it ran.
fn baseline(out: &mut String, name: &str, reports: &[&LoadReport]) {
    if reports.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "\n  {name}: {:.0} messages/s; latency p50 {:.2} ms, p99 {:.2} ms",
        median_of(reports, LoadReport::rate),
        median_of(reports, |r| r.latency.p50.as_secs_f64() * 1e3),
        median_of(reports, |r| r.latency.p99.as_secs_f64() * 1e3),
    );
}

/// The median of `f` over the reports (0 when there are none).
fn median_of(reports: &[&LoadReport], f: impl Fn(&LoadReport) -> f64) -> f64 {
    let values: Vec<f64> = reports.iter().map(|r| f(r)).collect();
    median(&values).unwrap_or(0.0)
}

/// Appends the median of per-run ratios and each run's, if there are any.
fn ratio_line(out: &mut String, name: &str, ratios: Vec<f64>) {
    if ratios.is_empty() {
        return;
    }
    let each: Vec<String> = ratios
        .iter()
        .map(|r| format!("{:.0}%", r * 100.0))
        .collect();
    let _ = write!(
        out,
        "\n  {name}: {:.0}% (each run: {})",
        median(&ratios).unwrap_or(0.0) * 100.0,
        each.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::describe;
    use crate::durability::Durability;
    use crate::run::{LoadReport, Rss};
    use crate::stats::{LatencySummary, Tally};
    use std::time::Duration;

    fn latency(count: usize, us: u64) -> LatencySummary {
        let d = |k: u64| Duration::from_micros(us * k);
        LatencySummary {
            count,
            p50: d(1),
            p90: d(2),
            p99: d(3),
            max: d(4),
        }
    }

    /// An echo run on one server: no game lines, no Redis, no memory.
    fn echo() -> LoadReport {
        LoadReport {
            load: "echo",
            seats: 4,
            tables: 10,
            connected: 40,
            connect_time: Duration::from_millis(1_250),
            open_at_end: 40,
            window: Duration::from_secs(5),
            per_second: vec![900, 1_000, 1_100],
            playing: Vec::new(),
            tally: Tally {
                in_window: 5_000,
                ..Tally::default()
            },
            latency: latency(5_000, 400),
            final_latency: LatencySummary::default(),
            rss: None,
            aborted: 0,
            server_cores: None,
            process_cores: Vec::new(),
            nodes: 1,
            redis_commands: None,
            owner_node_latency: LatencySummary::default(),
            other_node_latency: LatencySummary::default(),
            client_cores: Some(0.75),
            durability: None,
            cpus: 2,
            fault: None,
        }
    }

    /// A game run on two nodes with every optional line.
    fn cluster_game() -> LoadReport {
        let mut tally = Tally {
            in_window: 20_000,
            games_started: 120,
            games_finished: 110,
            joins_again: 3,
            ..Tally::default()
        };
        tally.errors.add("closed", "the server closed");
        tally.errors.add("closed", "again");
        tally.errors.add("connect", "refused");
        LoadReport {
            load: "game",
            seats: 3,
            tables: 50,
            connected: 149,
            connect_time: Duration::from_millis(2_340),
            open_at_end: 148,
            window: Duration::from_secs(10),
            per_second: vec![1_900, 2_000, 2_100, 1_800],
            playing: vec![48, 50, 49],
            tally,
            latency: latency(20_000, 700),
            final_latency: latency(110, 900),
            rss: Some(Rss {
                base: 10_240,
                held: 12_288,
                peak: 14_000,
            }),
            aborted: 2,
            server_cores: Some(1.5),
            process_cores: vec![("node-a".into(), 0.8), ("node-b".into(), 0.7)],
            nodes: 2,
            redis_commands: Some(45_000),
            owner_node_latency: latency(12_000, 600),
            other_node_latency: latency(8_000, 800),
            client_cores: Some(0.5),
            durability: Some(Durability {
                appends: 4_000,
                append_p50: Some(0.000_256),
                append_p99: Some(0.002_048),
                syncs: 4_000,
                sync_p50: Some(0.000_128),
                sync_p99: Some(0.001_024),
                wait_p50: Some(0.001_024),
                wait_p99: Some(f64::INFINITY),
            }),
            cpus: 2,
            fault: None,
        }
    }

    #[test]
    fn describe_words_every_part_of_a_run() {
        let mut one_server = cluster_game();
        one_server.nodes = 1;
        one_server.process_cores.truncate(1);
        one_server.tally.errors = Default::default();
        one_server.aborted = 0;
        one_server.tally.joins_again = 0;
        let mut no_client_cores = echo();
        no_client_cores.client_cores = None;
        no_client_cores.server_cores = Some(0.3);
        let reports = [echo(), cluster_game(), one_server, no_client_cores];
        let expected = [
            "echo: 40/40 connections held (opened in 1.2 s; 40 open at the end of the window), 10 groups of 4
  1000 messages/s over 5.0 s (each second: median 1000, min 900)
  CPU cores used by the load generator (and any in-process server): 0.75
  latency p50 0.40 ms  p90 0.80 ms  p99 1.20 ms  max 1.60 ms  (5000 messages)
  errors: 0",
            "game: 149/150 connections held (opened in 2.3 s; 148 open at the end of the window), 50 rooms of 3 split across 2 nodes (playing at once: median 49, min 48)
  2000 moves/s over 10.0 s (each second: median 1950, min 1800)
  CPU cores used (of 2): servers 1.50, load generator 0.50 (CPU per move: servers 750.0 µs, load generator 250.0 µs)
  per process: node-a 0.80 cores, 400.0 µs; node-b 0.70 cores, 350.0 µs
  disk: 4000 journal appends (400 a second), one append p50 ≤ 0.26 ms, p99 ≤ 2.05 ms; 4000 fdatasyncs (400 a second), one p50 ≤ 0.13 ms, p99 ≤ 1.02 ms; a room's wait for durability p50 ≤ 1.02 ms, p99 above the largest bucket
  latency p50 0.70 ms  p90 1.40 ms  p99 2.10 ms  max 2.80 ms  (20000 moves)
  by seats on the room's node: p50 0.60 ms  p99 1.80 ms  (12000 moves); on another node: p50 0.80 ms  p99 2.40 ms  (8000 moves)
  Redis: 45000 commands over the window, 2.25 per move
  of which game-ending moves: p50 0.90 ms  p99 2.70 ms  max 3.60 ms  (110 moves)
  games: 120 started, 110 finished, 10 unfinished
  joins asked again: 3 (the joining seat's node did not know the room created on another node yet)
  errors: 3
    2 × closed (first: the server closed)
    1 × connect (first: refused)
  2 rooms did not stop in time and were aborted
  server memory (VmRSS): 10.0 MiB before connecting, 12.0 MiB with every connection held (13.7 KiB per connection), peak 13.7 MiB during the run",
            "game: 149/150 connections held (opened in 2.3 s; 148 open at the end of the window), 50 rooms of 3 (playing at once: median 49, min 48)
  2000 moves/s over 10.0 s (each second: median 1950, min 1800)
  CPU cores used (of 2): server 1.50, load generator 0.50 (CPU per move: server 750.0 µs, load generator 250.0 µs)
  disk: 4000 journal appends (400 a second), one append p50 ≤ 0.26 ms, p99 ≤ 2.05 ms; 4000 fdatasyncs (400 a second), one p50 ≤ 0.13 ms, p99 ≤ 1.02 ms; a room's wait for durability p50 ≤ 1.02 ms, p99 above the largest bucket
  latency p50 0.70 ms  p90 1.40 ms  p99 2.10 ms  max 2.80 ms  (20000 moves)
  Redis: 45000 commands over the window, 2.25 per move
  of which game-ending moves: p50 0.90 ms  p99 2.70 ms  max 3.60 ms  (110 moves)
  games: 120 started, 110 finished, 10 unfinished
  errors: 0
  server memory (VmRSS): 10.0 MiB before connecting, 12.0 MiB with every connection held (13.7 KiB per connection), peak 13.7 MiB during the run",
            "echo: 40/40 connections held (opened in 1.2 s; 40 open at the end of the window), 10 groups of 4
  1000 messages/s over 5.0 s (each second: median 1000, min 900)
  latency p50 0.40 ms  p90 0.80 ms  p99 1.20 ms  max 1.60 ms  (5000 messages)
  errors: 0",
        ];
        for (r, expected) in reports.iter().zip(expected) {
            assert_eq!(describe(r), expected);
        }
    }
}
