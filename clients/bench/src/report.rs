//! The load generator's words: one run's [`LoadReport`] as text ([`describe`]) and the medians
//! of several runs with the ratio to the echo baseline ([`summarize`]).

use super::run::LoadReport;
use super::stats::median;
use std::fmt::Write as _;
use std::time::Duration;

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Several lines describing one run.
pub fn describe(r: &LoadReport) -> String {
    let game = r.load == "game";
    let (unit, rooms) = if game {
        ("moves", "rooms")
    } else {
        ("messages", "groups")
    };
    let mut out = String::new();
    let asked = r.tables * r.seats;
    let _ = write!(
        out,
        "{}: {}/{asked} connections held (opened in {:.1} s; {} open at the end of the window), {} {rooms} of {}",
        r.load,
        r.connected,
        r.connect_time.as_secs_f64(),
        r.open_at_end,
        r.tables,
        r.seats,
    );
    if r.nodes > 1 {
        let _ = write!(out, " split across {} nodes", r.nodes);
    }
    if game {
        let playing: Vec<f64> = r.playing.iter().map(|&p| p as f64).collect();
        let _ = write!(
            out,
            " (playing at once: median {:.0}, min {})",
            median(&playing).unwrap_or(0.0),
            r.playing.iter().min().copied().unwrap_or(0)
        );
    }
    let secs: Vec<f64> = r.per_second.iter().map(|&n| n as f64).collect();
    let _ = write!(
        out,
        "\n  {:.0} {unit}/s over {:.1} s (each second: median {:.0}, min {})",
        r.rate(),
        r.window.as_secs_f64(),
        median(&secs).unwrap_or(0.0),
        r.per_second.iter().min().copied().unwrap_or(0),
    );
    let per_op = |cores: f64| r.cpu_per_move(cores);
    let one = &unit[..unit.len() - 1];
    match (r.server_cores, r.client_cores) {
        (Some(s), Some(c)) => {
            let servers = if r.process_cores.len() > 1 {
                "servers"
            } else {
                "server"
            };
            let _ = write!(
                out,
                "\n  CPU cores used: {servers} {s:.2}, load generator {c:.2} (CPU per {one}: {servers} {:.1} µs, load generator {:.1} µs)",
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
    let l = &r.latency;
    let _ = write!(
        out,
        "\n  latency p50 {}  p90 {}  p99 {}  max {}  ({} {unit})",
        ms(l.p50),
        ms(l.p90),
        ms(l.p99),
        ms(l.max),
        l.count
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
    if let (Some(n), Some(per)) = (r.redis_commands, r.redis_per_move()) {
        let _ = write!(
            out,
            "\n  Redis: {n} commands over the window, {per:.2} per {one}"
        );
    }
    if game && r.final_latency.count > 0 {
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
    if game {
        let _ = write!(
            out,
            "\n  games: {} started, {} finished, {} unfinished",
            r.tally.games_started,
            r.tally.games_finished,
            r.unfinished()
        );
    }
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
            "\n  {} {rooms} did not stop in time and were aborted",
            r.aborted
        );
    }
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
    out
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
