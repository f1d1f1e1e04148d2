//! The pairing mode's words ([`describe_pairing`]): each phase's players, latencies and server
//! CPU per game, pairing ÷ plain join, and the lone-waiter pairs.

use super::pairing::LEAVE_AGAIN;
use super::pairing_run::{PairingReport, Phase};
use super::report::{error_lines, ms, percentiles};
use super::stats::LatencySummary;
use std::fmt::Write as _;

/// A pairing run in a few lines.
pub fn describe_pairing(r: &PairingReport) -> String {
    let p = &r.plan;
    let mut out = format!(
        "pairing: {} players a phase arriving evenly over {:.1} s ({:.1} a second), preset {} ({} seats a room)",
        p.players,
        p.duration.as_secs_f64(),
        p.players as f64 / p.duration.as_secs_f64().max(1e-9),
        p.preset,
        r.seats
    );
    let joiners = p.players / r.seats.max(1) * r.seats.saturating_sub(1);
    phase(
        &mut out,
        "quick pairing (seek → joined)",
        &r.pairing,
        p.players,
    );
    phase(
        &mut out,
        "plain join (join_room → joined, the joiners)",
        &r.plain,
        joiners,
    );
    let _ = write!(
        out,
        "\n  pairing ÷ plain join: latency p50 {:.1}, p99 {:.1}",
        r.ratio(|l| l.p50),
        r.ratio(|l| l.p99)
    );
    if let Some(cpu) = r.cpu_ratio() {
        let _ = write!(out, "; server CPU per game {cpu:.2}");
    }
    let _ = write!(
        out,
        "\n  one waits alone {:.0} ms, then the second seeks ({} pairs, one at a time):",
        p.gap.as_secs_f64() * 1000.0,
        p.lone_pairs
    );
    latencies(&mut out, "first", &r.lone.first);
    latencies(&mut out, "second", &r.lone.second);
    early(&mut out, r.lone.early_leaves);
    error_lines(&mut out, &r.lone.errors);
    out
}

/// One phase's lines, `measured` players being timed.
fn phase(out: &mut String, name: &str, ph: &Phase, measured: usize) {
    let _ = write!(
        out,
        "\n  {name}: {} of {measured} seated, {} games, {} errors, {:.1} s",
        ph.tally.seated,
        ph.tally.games,
        ph.tally.errors.total(),
        ph.length.as_secs_f64()
    );
    latencies(out, "latency", &ph.latency);
    match (ph.server_cpu, ph.cpu_per_game()) {
        (Some(cpu), Some(per)) => {
            let _ = write!(
                out,
                "\n    server CPU {:.2} s ({:.2} cores): {} per game",
                cpu.as_secs_f64(),
                cpu.as_secs_f64() / ph.length.as_secs_f64().max(1e-9),
                ms(per)
            );
        }
        _ => out.push_str("\n    server CPU unknown (give --server-pid, or --spawn-server)"),
    }
    early(out, ph.tally.early_leaves);
    error_lines(out, &ph.tally.errors);
}

/// The leaves refused right after `joined`, if any.
fn early(out: &mut String, n: u64) {
    if n > 0 {
        let _ = write!(
            out,
            "\n    {n} leave(s) sent on `joined` refused `forbidden` (the connection not yet in the room), sent again {} ms later",
            LEAVE_AGAIN.as_millis()
        );
    }
}

/// A latency line: p50, p90, p99, max.
fn latencies(out: &mut String, name: &str, l: &LatencySummary) {
    let _ = write!(
        out,
        "\n    {name} {} ({} samples)",
        percentiles(l, "  "),
        l.count
    );
}
