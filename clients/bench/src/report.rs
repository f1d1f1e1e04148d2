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
    let per_op =
        |cores: f64| cores * r.window.as_secs_f64() * 1e6 / (r.tally.in_window.max(1) as f64);
    let one = &unit[..unit.len() - 1];
    match (r.server_cores, r.client_cores) {
        (Some(s), Some(c)) => {
            let _ = write!(
                out,
                "\n  CPU cores used: server {s:.2}, load generator {c:.2} (CPU per {one}: server {:.1} µs, load generator {:.1} µs)",
                per_op(s),
                per_op(c)
            );
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
    out
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
