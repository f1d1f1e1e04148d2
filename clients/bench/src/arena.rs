//! The arena mode: an account creates an arena tournament of N built-in bots on the server and
//! watches it to its end; measured are the games finished a second, the server's CPU time per
//! game, and how long each game's result took to reach the tournament's watchers (from the
//! `finished_ms` of its record to the first `tournament` view that shows its result).

use super::codec::send_json;
use super::pairing::{await_msg, preset_config};
use super::process;
use super::run::Servers;
use super::socket::{Target, Ws, connect};
use super::stats::{Errors, Latencies, LatencySummary};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{ClientMessage, ServerMessage, TournamentStatus, TournamentView};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// Time the games in play at the arena's end get to finish.
const FINISH_GRACE: Duration = Duration::from_secs(60);

/// What the arena mode runs.
#[derive(Clone, Debug)]
pub struct ArenaPlan {
    /// Entrants: `bot,seed=1` … `bot,seed=N`.
    pub entrants: usize,
    /// The built-in level every entrant plays (`random`, `greedy`, `level:1` …).
    pub bot: String,
    /// The game every pairing plays: the server's preset of this name.
    pub preset: String,
    /// How long the arena starts new games.
    pub duration: Duration,
}

/// What an arena run measured.
#[derive(Clone, Debug)]
pub struct ArenaReport {
    /// What was run.
    pub plan: ArenaPlan,
    /// The tournament's id.
    pub id: String,
    /// Games played (all finished at the end).
    pub games: usize,
    /// From the tournament's creation to its last game's result seen by the watcher.
    pub span: Duration,
    /// `tournament` views the watcher received.
    pub views: u64,
    /// The server's CPU time over the span, when its process is known.
    pub server_cpu: Option<Duration>,
    /// With a spawned cluster, its Redis's CPU time over the span (the tournament's state is
    /// written there).
    pub redis_cpu: Option<Duration>,
    /// Per game shown finished in a view: its record's `finished_ms` to the first view showing
    /// its result.
    pub updates: LatencySummary,
    /// What went wrong.
    pub errors: Errors,
}

impl ArenaReport {
    /// Games finished a second over the span.
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.span.as_secs_f64().max(1e-9)
    }

    /// The server's CPU time per finished game.
    pub fn cpu_per_game(&self) -> Option<Duration> {
        self.per_game(self.server_cpu?)
    }

    /// `total` per finished game.
    fn per_game(&self, total: Duration) -> Option<Duration> {
        let games = u32::try_from(self.games).ok().filter(|&g| g > 0)?;
        Some(total / games)
    }
}

/// Milliseconds since the Unix epoch on this machine's clock (the server's, on loopback).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Registers a fresh throwaway account on `ws`, which then acts as it.
async fn register(ws: &mut Ws) -> anyhow::Result<()> {
    let name = format!("arena{}", now_ms() % 1_000_000_000);
    let password = format!("bench-{:x}-{:x}", now_ms(), std::process::id());
    send_json(ws, &ClientMessage::Register { name, password }).await?;
    await_msg(ws, |m| {
        matches!(m, ServerMessage::Account { .. }).then_some(())
    })
    .await
}

/// Runs `plan` against the first of `servers` (the first node of a spawned cluster).
pub async fn run_arena(servers: &Servers, plan: ArenaPlan) -> anyhow::Result<ArenaReport> {
    let target: &Target = servers
        .targets
        .first()
        .ok_or_else(|| anyhow::anyhow!("no server"))?;
    let pid = servers.processes.first().map(|p| p.pid);
    let redis = servers
        .processes
        .iter()
        .find(|p| p.name == "redis")
        .map(|p| p.pid);
    let redis_before = redis.and_then(process::cpu_time);
    let config = preset_config(target, 0, &plan.preset).await?;
    let mut ws = connect(target, 1).await?;
    register(&mut ws).await?;
    let bots: Vec<String> = (1..=plan.entrants)
        .map(|i| format!("{},seed={i}", plan.bot))
        .collect();
    let spec = json!({
        "name": "bench arena",
        "format": {"kind": "arena", "duration_ms": plan.duration.as_millis() as u64},
        "config": config,
        "bots": bots,
    });
    let cpu_before = pid.and_then(process::cpu_time);
    let started = Instant::now();
    // Written as JSON so that fields the spec gains later keep their defaults.
    let create: ClientMessage =
        serde_json::from_value(json!({"type": "create_tournament", "tournament": spec}))?;
    send_json(&mut ws, &create).await?;
    let (id, seen, views, games) = watch(&mut ws, &plan).await?;
    let span = started.elapsed();
    let server_cpu = process::cpu_since(pid, cpu_before);
    let redis_cpu = process::cpu_since(redis, redis_before);
    let (updates, errors) = update_latencies(&mut ws, &seen).await;
    let _ = ws.close(None).await;
    Ok(ArenaReport {
        plan,
        id,
        games,
        span,
        views,
        server_cpu,
        redis_cpu,
        updates,
        errors,
    })
}

/// Reads views until the tournament is finished; returns its id, each finished game shown with
/// the time (Unix ms) of the first view showing its result, the views read, and the games
/// played (a view lists the recent ones: a game that ended long after it began may never be
/// shown finished).
async fn watch(
    ws: &mut Ws,
    plan: &ArenaPlan,
) -> anyhow::Result<(String, BTreeMap<String, u64>, u64, usize)> {
    let deadline = Instant::now() + plan.duration + FINISH_GRACE;
    let mut seen = BTreeMap::new();
    let mut views = 0;
    loop {
        anyhow::ensure!(
            Instant::now() < deadline,
            "the arena did not finish within its duration and {} s",
            FINISH_GRACE.as_secs()
        );
        let view = await_msg(ws, |m| match m {
            ServerMessage::Tournament(view) => Some(view),
            _ => None,
        })
        .await?;
        let at = now_ms();
        views += 1;
        let TournamentView {
            id,
            games,
            games_from,
            status,
            ..
        } = *view;
        let started = games_from as usize + games.len();
        for g in games.into_iter().filter(|g| g.result.is_some()) {
            seen.entry(g.game).or_insert(at);
        }
        if status == TournamentStatus::Finished {
            return Ok((id, seen, views, started));
        }
    }
}

/// Each game's record read back; its `finished_ms` to the time its result was first seen.
async fn update_latencies(ws: &mut Ws, seen: &BTreeMap<String, u64>) -> (LatencySummary, Errors) {
    let mut latencies = Latencies::default();
    let mut errors = Errors::default();
    for (game, &at) in seen {
        match record(ws, game).await {
            Ok(Record {
                finished_ms: Some(done),
                ..
            }) => latencies.record(Duration::from_millis(at.saturating_sub(done))),
            Ok(_) => errors.add("record", format!("game {game} has no finished_ms")),
            Err(e) => errors.add("record", format!("game {game}: {e}")),
        }
    }
    (latencies.summary(), errors)
}

/// Game `game`'s stored record.
async fn record(ws: &mut Ws, game: &str) -> anyhow::Result<Record> {
    let ask = ClientMessage::GetGame {
        game: game.to_owned(),
    };
    send_json(ws, &ask).await?;
    await_msg(ws, |m| match m {
        ServerMessage::Game { record } => Some(record),
        _ => None,
    })
    .await
}

/// An arena run in a few lines.
pub fn describe_arena(r: &ArenaReport) -> String {
    use super::report::{error_lines, ms, percentiles};
    use std::fmt::Write as _;
    let p = &r.plan;
    let mut out = format!(
        "arena {}: {} entrants ({}), preset {}, new games for {:.1} s",
        r.id,
        p.entrants,
        p.bot,
        p.preset,
        p.duration.as_secs_f64()
    );
    let _ = write!(
        out,
        "\n  {} games in {:.2} s: {:.1} games/s; {} views pushed to the watcher",
        r.games,
        r.span.as_secs_f64(),
        r.games_per_second(),
        r.views
    );
    if let Some(cpu) = r.cpu_per_game() {
        let _ = write!(out, "; server CPU per game {}", ms(cpu));
    }
    if let Some(cpu) = r.redis_cpu.and_then(|c| r.per_game(c)) {
        let _ = write!(out, "; Redis CPU per game {}", ms(cpu));
    }
    let _ = write!(
        out,
        "\n  a result in the standings (record finished_ms → view, 1 ms clock): {} ({} games)",
        percentiles(&r.updates, ", "),
        r.updates.count
    );
    error_lines(&mut out, &r.errors);
    out
}
