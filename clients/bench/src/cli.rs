//! The `jchomp-bench` command line ([`Args`]) and what it does ([`main`]): raise the
//! open-files limit, start the servers it was asked to start, run the echo baseline and the
//! game load once per run, and print each run and the medians.

use super::arena::{ArenaPlan, describe_arena, run_arena};
use super::cluster::{self, SpawnedCluster};
use super::echo;
use super::fault::{Fault, Strike};
use super::login_report::{describe_flood, describe_logins};
use super::login_run::{FloodPlan, LoginPlan, run_flood, run_logins};
use super::pairing_report::describe_pairing;
use super::pairing_run::{PairingPlan, run_pairing};
use super::plan::{Load, Shape};
use super::process::{self, Child, ProcessError, ServerLaunch};
use super::report::{RunReports, describe, summarize};
use super::run::{LoadReport, Servers, Watched, run_load};
use super::socket::Target;
use clap::Parser;
use jchomp_engine::duration::{DurationError, Unit, parse_duration};
use jchomp_protocol::board_args::BoardArgs;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

/// Load generator for jchomp-server: N WebSocket connections in rooms of scripted players
/// making valid moves; reports connections held, rooms, moves/s, latency and errors, and with
/// `--echo` the ratio to a bare WebSocket echo server measured in the same run.
#[derive(Debug, Parser)]
#[command(version, about)]
pub struct Args {
    /// The server to load, e.g. ws://127.0.0.1:7777/ws (loopback only). Repeat it for the
    /// nodes of a cluster: each room's seats are split across them (seat 0 creates the room on
    /// one node, the next seat joins from the next node…), so that every move crosses nodes.
    #[arg(long, value_name = "URL", conflicts_with_all = ["spawn_server", "spawn_cluster"])]
    pub server: Vec<String>,
    /// Start jchomp-server as a child process for each run (a fresh data directory, limits
    /// that admit the load), so that its memory can be read.
    #[arg(long)]
    pub spawn_server: bool,
    /// Start a cluster for each run: a redis-server of its own (on a free loopback port, in a
    /// temporary directory) and N jchomp-server nodes on it (`--cluster`), each room's seats
    /// split across the nodes. With --spawn-server too, each run loads one node and then the
    /// cluster (in alternating order), and the summary compares them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(2..=16))]
    pub spawn_cluster: Option<u16>,
    /// With --spawn-cluster: strike a fault during the window — `kill@5s` (the first node is
    /// killed with SIGKILL 5 s into the window), `pause=12s@5s` (it is paused with SIGSTOP for
    /// 12 s, then continued) or `redis-pause=5s@5s` (the cluster's Redis is paused). Most rooms
    /// are then created on the first node; the players reconnect to the next node and resume
    /// their seats, and the run reports the longest stall, the time to the first move after
    /// the fault, the reconnects, and any acknowledged move lost or view forked (the exit
    /// status is then non-zero). Moves are sent as fast as the server answers (no --rate).
    #[arg(long, value_name = "FAULT", requires = "spawn_cluster", conflicts_with_all = ["spawn_server", "rate"])]
    pub fault: Option<Fault>,
    /// The redis-server binary for --spawn-cluster (default: `redis-server` on the PATH, from
    /// Debian's redis-server package).
    #[arg(long, value_name = "PATH")]
    pub redis_bin: Option<PathBuf>,
    /// The jchomp-server binary for --spawn-server (default: next to this program).
    #[arg(long, value_name = "PATH")]
    pub server_bin: Option<PathBuf>,
    /// RUST_LOG for the spawned server.
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub server_log: String,
    /// The process id of a --server, to report its memory and CPU time (repeat it for each
    /// --server, in the same order).
    #[arg(long, value_name = "PID")]
    pub server_pid: Vec<u32>,
    /// Connections to open (rounded down to whole rooms).
    #[arg(long, default_value_t = 100)]
    pub connections: usize,
    /// Time measured (after the warm-up): seconds, or a time such as `1500ms` or `1m`.
    #[arg(long, value_name = "TIME", default_value_t = 10.0, value_parser = seconds)]
    pub duration: f64,
    /// Time played before measuring (seconds, or `500ms`…); rooms start at moments spread
    /// over it, so that their games do not run in step.
    #[arg(long, value_name = "TIME", default_value_t = 2.0, value_parser = seconds)]
    pub warmup: f64,
    /// Moves per second per seat at most (default: each move as soon as it is the seat's turn).
    #[arg(long, value_name = "PER_SEC")]
    pub rate: Option<f64>,
    /// The board, eat size, poison and players per room.
    #[command(flatten)]
    pub board: BoardArgs,
    /// Also run the same load against a bare WebSocket echo server (a child of this program)
    /// in every run, and report the ratio.
    #[arg(long)]
    pub echo: bool,
    /// Also run the same load against the bare echo server in fan-out mode: each message goes
    /// to every connection of its group, as a move goes to every seat of its room; report the
    /// ratio to that too.
    #[arg(long)]
    pub echo_fanout: bool,
    /// Also run the same echo load against the spawned server's own test-only echo path
    /// (`--echo-path`): its connection code without the game (needs --spawn-server).
    #[arg(long, requires = "spawn_server")]
    pub server_echo: bool,
    /// Only the echo baseline, no game server.
    #[arg(long, conflicts_with_all = ["server", "spawn_server", "spawn_cluster"])]
    pub echo_only: bool,
    /// Runs (each: echo if asked, then game); the summary gives medians.
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Source addresses 127.0.0.1… to spread connections over (default: one per 2,000
    /// connections).
    #[arg(long, value_name = "N")]
    pub source_addrs: Option<u8>,
    /// Connections opened at once.
    #[arg(long, default_value_t = 256)]
    pub connect_parallel: usize,
    /// Time rooms get after the window to finish the game they are in (seconds, or `500ms`…;
    /// games still going then are reported as unfinished).
    #[arg(long, value_name = "TIME", default_value_t = 15.0, value_parser = seconds)]
    pub drain: f64,
    /// Seeds the scripted players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads of this load generator (default: one per CPU). The load and the servers share
    /// the machine's CPUs: splitting them (e.g. `--threads 1 --server-threads 1` on two CPUs)
    /// keeps the processes from taking turns on the same CPUs when all are saturated.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Threads of the spawned server and of the echo servers (`--threads` of jchomp-server;
    /// default: one per CPU).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub server_threads: Option<u16>,
    /// Measure logins instead: `rate` registers --login-accounts accounts, then
    /// --login-connections connections log in to them with the right password for --duration
    /// (after --warmup), and reports logins a second and per CPU-second of the server; `flood`
    /// runs the game load for --duration, then again while --login-connections connections send
    /// wrong passwords, and reports the games' latency during ÷ before and how the flood was
    /// answered. The server allows one address 20 attempts a minute: `rate` moves a throttled
    /// connection to the next loopback address (127.0.0.1–255); `flood` keeps each connection
    /// on its address (--flood-addrs of them).
    #[arg(long, value_enum, value_name = "MODE",
          conflicts_with_all = ["spawn_cluster", "fault", "echo_only", "server_echo", "echo", "echo_fanout"])]
    pub login: Option<LoginMode>,
    /// With --login: the connections logging in (or flooding) at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub login_connections: usize,
    /// With --login rate: the accounts registered first and logged in to in turn.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub login_accounts: usize,
    /// With --login flood: the loopback source addresses the flood comes from (127.0.0.1…).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..))]
    pub flood_addrs: u8,
    /// With --login flood: wrong passwords a second per flood connection at most.
    #[arg(long, value_name = "PER_SEC", default_value_t = 100.0)]
    pub flood_rate: f64,
    /// Measure quick pairing instead: N players arrive evenly over --duration, each connecting,
    /// seeking in the pool of --preset as a guest, measured from its `seek` to its `joined`,
    /// then leaving its room (the game ends `abandoned` and the room closes, so that the load
    /// stays bounded); then N more at the same rate in rooms one of them creates with the
    /// preset's game and the others join by id, the joiners measured from `join_room` to
    /// `joined`. Reports both, the server's CPU time per game in each, pairing ÷ plain join,
    /// and pairs in which one player waits alone before the second arrives.
    #[arg(long, value_name = "N",
          conflicts_with_all = ["login", "spawn_cluster", "fault", "echo_only", "server_echo", "echo", "echo_fanout"])]
    pub pairing: Option<usize>,
    /// With --pairing: the preset whose pool the players seek in; with --arena, the game
    /// every pairing plays.
    #[arg(long, value_name = "NAME", default_value = "duel")]
    pub preset: String,
    /// Measure a server-run arena instead: an account creates an arena tournament of N
    /// built-in bots (`--arena-bot`, seeded 1…N) that starts new games for --duration, and
    /// watches it to its end. Reports games a second, the server's CPU time per game and the
    /// time from each game's end to the first standings showing it. With --spawn-cluster, on
    /// the cluster's first node (the tournament kept in Redis), Redis's CPU per game too.
    #[arg(long, value_name = "N",
          conflicts_with_all = ["login", "pairing", "fault", "echo_only", "server_echo", "echo", "echo_fanout"])]
    pub arena: Option<usize>,
    /// With --arena: the built-in level every entrant plays.
    #[arg(long, value_name = "SPEC", default_value = "random")]
    pub arena_bot: String,
    /// Serve as a bare echo server on this address (used by --echo; prints its URL).
    #[arg(long, value_name = "ADDR", hide = true)]
    pub serve_echo: Option<String>,
}

/// What `--login` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LoginMode {
    /// Logins a second, and per CPU-second of the server.
    Rate,
    /// Games in play before and during a flood of wrong passwords.
    Flood,
}

/// The path of the spawned server's test-only echo (`--server-echo`).
const ECHO_PATH: &str = "/echo";

/// Upper bounds that keep a run bounded.
const MAX_CONNECTIONS: usize = 60_000;
const MAX_SECS: f64 = 600.0;
/// Arena entrants at most.
const MAX_ARENA: usize = 1_000;

/// A time flag in the one duration syntax, a bare number being seconds, as seconds.
fn seconds(text: &str) -> Result<f64, DurationError> {
    parse_duration(text, Some(Unit::Seconds)).map(|d| d.as_secs_f64())
}
const MAX_RUNS: usize = 20;

/// Why the arguments are refused before anything runs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArgsError {
    /// A time out of its range.
    #[error("--duration must be 0.1–{MAX_SECS} s, --warmup and --drain 0–{MAX_SECS} s")]
    Times,
    /// Too few or too many connections.
    #[error("--connections must be 1–{MAX_CONNECTIONS}")]
    Connections,
    /// Too few or too many runs.
    #[error("--runs must be 1–{MAX_RUNS}")]
    Runs,
    /// A rate that is not a positive number.
    #[error("--rate must be a positive number of moves per second")]
    Rate,
    /// Fewer connections than one room has seats.
    #[error("--connections must be at least {0} (one room)")]
    OneRoom(usize),
    /// A game run without a server.
    #[error(
        "say which server: --server URL (repeated for a cluster's nodes), --spawn-server or --spawn-cluster N (or --echo-only)"
    )]
    NoServer,
    /// Too few or too many pairing players.
    #[error("--pairing must be 2–{MAX_CONNECTIONS} players")]
    Pairing,
    /// Too few or too many arena entrants.
    #[error("--arena must be 2–{MAX_ARENA} entrants (the server may take fewer)")]
    Arena,
    /// Login flags out of range.
    #[error(
        "--login-connections must be 1–1000, --login-accounts 1–16 (registering more than 20 from one address is throttled), --flood-rate a positive number"
    )]
    Login,
    /// More process ids than servers.
    #[error("--server-pid is given {pids} times for {servers} --server")]
    Pids {
        /// The process ids given.
        pids: usize,
        /// The servers given.
        servers: usize,
    },
}

/// The server to load could not be started; says how to get one.
#[derive(Debug, thiserror::Error)]
#[error("{0} (build it with `cargo build --release -p jchomp-server`, or pass --server-bin)")]
struct SpawnServerError(#[source] ProcessError);

impl Args {
    fn shape(&self) -> Result<Shape, ArgsError> {
        let secs = 0.0..=MAX_SECS;
        if !(0.1..=MAX_SECS).contains(&self.duration)
            || !secs.contains(&self.warmup)
            || !secs.contains(&self.drain)
        {
            return Err(ArgsError::Times);
        }
        if !(1..=MAX_CONNECTIONS).contains(&self.connections) {
            return Err(ArgsError::Connections);
        }
        if !(1..=MAX_RUNS).contains(&self.runs) {
            return Err(ArgsError::Runs);
        }
        if self.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(ArgsError::Rate);
        }
        let login_ok = (1..=1000).contains(&self.login_connections)
            && (1..=16).contains(&self.login_accounts)
            && self.flood_rate.is_finite()
            && self.flood_rate > 0.0;
        if !login_ok {
            return Err(ArgsError::Login);
        }
        if self
            .pairing
            .is_some_and(|n| !(2..=MAX_CONNECTIONS).contains(&n))
        {
            return Err(ArgsError::Pairing);
        }
        if self.arena.is_some_and(|n| !(2..=MAX_ARENA).contains(&n)) {
            return Err(ArgsError::Arena);
        }
        if self.server_pid.len() > self.server.len() {
            return Err(ArgsError::Pids {
                pids: self.server_pid.len(),
                servers: self.server.len(),
            });
        }
        Ok(Shape {
            connections: self.connections,
            duration: Duration::from_secs_f64(self.duration),
            warmup: Duration::from_secs_f64(self.warmup),
            rate: self.rate,
            connect_parallel: self.connect_parallel.max(1),
            drain: Duration::from_secs_f64(self.drain),
            seed: self.seed,
            ..Shape::default()
        })
    }

    /// The threads of this load generator: as asked, or one per CPU.
    pub fn own_threads(&self) -> usize {
        self.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        )
    }

    fn source_addrs(&self) -> u8 {
        self.source_addrs
            .unwrap_or_else(|| (self.connections / 2000 + 1).min(64) as u8)
    }
}

/// Runs `jchomp-bench` with parsed arguments.
pub async fn main(args: Args) -> ExitCode {
    if let Some(addr) = &args.serve_echo {
        return serve_echo(addr).await;
    }
    match run(&args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("jchomp-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_echo(addr: &str) -> ExitCode {
    let _ = process::raise_nofile();
    let listener = match TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("jchomp-bench: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(a) => println!("echo listening on ws://{a}/ws"),
        Err(e) => {
            eprintln!("jchomp-bench: {e}");
            return ExitCode::FAILURE;
        }
    }
    let _ = std::io::stdout().flush();
    echo::serve(listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await;
    ExitCode::SUCCESS
}

async fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let shape = args.shape()?;
    let config = args.board.config()?;
    let game = Load::game(config);
    let seats = game.seats();
    if args.connections < seats {
        return Err(ArgsError::OneRoom(seats).into());
    }
    let play_game = !args.echo_only;
    if play_game && args.server.is_empty() && !args.spawn_server && args.spawn_cluster.is_none() {
        return Err(ArgsError::NoServer.into());
    }
    // Against one server (given or spawned) unless only a cluster is asked for.
    let one_server = !args.server.is_empty() || args.spawn_server;
    let need = args.connections as u64 + 64;
    match process::raise_nofile() {
        Ok(limit) if limit < need => println!(
            "warning: the open-files limit is {limit} (its hard limit); {need} are needed for {} connections — raise it with `ulimit -n` first",
            args.connections
        ),
        Ok(limit) => println!("open-files limit: {limit}"),
        Err(e) => {
            println!("warning: cannot raise the open-files limit ({e}); connections may fail")
        }
    }
    let rooms = args.connections / seats;
    let rate = match args.rate {
        Some(r) => format!("{r} moves/s per seat"),
        None => "as fast as the server answers".to_owned(),
    };
    if args.login != Some(LoginMode::Rate) && args.pairing.is_none() && args.arena.is_none() {
        println!(
            "jchomp-bench: {} connections in {rooms} rooms of {seats}, board {config}, {} s measured after {} s warm-up, {rate}, {} run(s), {} source address(es)",
            rooms * seats,
            args.duration,
            args.warmup,
            args.runs,
            args.source_addrs()
        );
    }
    let against = match (args.server.len(), args.spawn_cluster) {
        (0, Some(n)) if args.spawn_server => {
            format!("one node, then a cluster of {n} nodes on one Redis (in turn)")
        }
        (0, Some(n)) => format!("a cluster of {n} nodes on one Redis"),
        (0 | 1, None) => "one server".to_owned(),
        (n, _) => format!("{n} servers"),
    };
    if args.spawn_cluster.is_some() || args.server.len() > 1 {
        println!(
            "against {against}; the seats of each room are split across the nodes (seat 0 creates the room on one, the next seat joins from the next), so every move crosses nodes"
        );
    }
    let servers = args
        .server_threads
        .map_or_else(|| "one per CPU".to_owned(), |n| n.to_string());
    println!(
        "threads: load generator {}, each server it starts {servers}",
        args.own_threads()
    );
    if autogroup_on() {
        println!(
            "the kernel groups processes by session (sched_autogroup_enabled = 1): work started from another terminal gets an equal share of the CPUs whatever its nice value, so a run shares the machine with it as if nothing were niced"
        );
    }
    if let Some(mode) = args.login {
        return run_login(args, mode, game, shape, rooms).await;
    }
    if let Some(players) = args.pairing {
        return run_pairing_mode(args, players, shape).await;
    }
    if let Some(entrants) = args.arena {
        return run_arena_mode(args, entrants, shape).await;
    }
    let mut runs: Vec<RunReports> = Vec::new();
    let mut errors = 0;
    for run in 1..=args.runs {
        if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
            let avg: Vec<&str> = load.split_whitespace().take(3).collect();
            println!(
                "run {run}: load average {} (other work on this machine competes for its cores)",
                avg.join(" ")
            );
        }
        let mut bare_echo = async |fanout: bool| -> anyhow::Result<LoadReport> {
            let child = process::spawn_echo(args.server_threads).await?;
            let target = Target::parse(&child.url, args.source_addrs())?;
            let load = Load::Echo { seats, fanout };
            let r = run_load(Servers::one(target, Some(child.pid)), load, shape.clone()).await;
            drop(child);
            println!("run {run} {}", describe(&r));
            errors += r.tally.errors.total();
            Ok(r)
        };
        let echo = if args.echo || args.echo_only {
            Some(bare_echo(false).await?)
        } else {
            None
        };
        let fanout_echo = if args.echo_fanout {
            Some(bare_echo(true).await?)
        } else {
            None
        };
        let server_echo = if args.server_echo && args.spawn_server {
            let child = spawn_one(args, rooms, true).await?;
            let base = child.url.strip_suffix("/ws").unwrap_or(&child.url);
            let url = format!("{base}{ECHO_PATH}");
            let target = Target::parse(&url, args.source_addrs())?;
            let load = Load::Echo {
                seats,
                fanout: false,
            };
            let servers = Servers::one(target, Some(child.pid));
            let mut r = run_load(servers, load, shape.clone()).await;
            drop(child);
            r.load = "server-echo";
            println!("run {run} {}", describe(&r));
            errors += r.tally.errors.total();
            Some(r)
        } else {
            None
        };
        let mut game_on = async |split: bool| -> anyhow::Result<LoadReport> {
            let (servers, started) = servers_for_run(args, rooms, split).await?;
            let shape = Shape {
                fault: started.strike(args.fault),
                ..shape.clone()
            };
            let r = run_load(servers, game.clone(), shape).await;
            drop(started);
            let name = if split { "cluster " } else { "" };
            println!("run {run} {name}{}", describe(&r));
            errors += r.tally.errors.total();
            Ok(r)
        };
        let (mut game_report, mut cluster_report) = (None, None);
        // The one node and the cluster take turns going first, so that neither always runs on
        // the warmer (or the busier) machine.
        let cluster_first = run % 2 == 0;
        for split in [cluster_first, !cluster_first] {
            if split && play_game && args.spawn_cluster.is_some() {
                cluster_report = Some(game_on(true).await?);
            } else if !split && play_game && one_server {
                game_report = Some(game_on(false).await?);
            }
        }
        runs.push(RunReports {
            game: game_report,
            cluster: cluster_report,
            echo,
            fanout_echo,
            server_echo,
        });
        // Let the closed connections' ports and the killed children settle between runs.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!("{}", summarize(&runs));
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The login mode (`--login`) against the server given or spawned: one run, its figures
/// printed; fails if it completed no login (or, flooding, was answered nothing) or saw errors.
async fn run_login(
    args: &Args,
    mode: LoginMode,
    game: Load,
    shape: Shape,
    rooms: usize,
) -> anyhow::Result<ExitCode> {
    let (servers, started) = servers_for_run(args, rooms, false).await?;
    let ok = match mode {
        LoginMode::Rate => {
            let plan = LoginPlan {
                connections: args.login_connections,
                accounts: args.login_accounts,
                warmup: shape.warmup,
                duration: shape.duration,
            };
            let r = run_logins(&servers, plan).await?;
            println!("{}", describe_logins(&r));
            r.logins() > 0 && r.tally.errors.total() == 0
        }
        LoginMode::Flood => {
            let plan = FloodPlan {
                connections: args.login_connections,
                addrs: args.flood_addrs,
                rate: args.flood_rate,
            };
            let r = run_flood(&servers, game, shape, plan).await?;
            println!("{}", describe_flood(&r));
            let errors = r.flood.errors.total()
                + r.before.tally.errors.total()
                + r.during.tally.errors.total();
            r.flood.total() > 0 && errors == 0
        }
    };
    drop(started);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Pairs in which one player waits alone before the second arrives, and how long it waits.
const LONE_PAIRS: usize = 10;
const LONE_GAP: Duration = Duration::from_millis(500);

/// The pairing mode (`--pairing N`) against the server given or spawned: one run, its figures
/// printed; fails if a phase seated nobody or anything went wrong.
async fn run_pairing_mode(args: &Args, players: usize, shape: Shape) -> anyhow::Result<ExitCode> {
    let (servers, started) = servers_for_run(args, players, false).await?;
    let plan = PairingPlan {
        players,
        preset: args.preset.clone(),
        duration: shape.duration,
        lone_pairs: LONE_PAIRS,
        gap: LONE_GAP,
    };
    let r = run_pairing(&servers, plan).await?;
    drop(started);
    println!("{}", describe_pairing(&r));
    let ok = r.pairing.tally.seated > 0 && r.plain.tally.seated > 0 && r.errors() == 0;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The arena mode (`--arena N`) against the server given or spawned: one tournament, its
/// figures printed; fails if no game finished or anything went wrong.
async fn run_arena_mode(args: &Args, entrants: usize, shape: Shape) -> anyhow::Result<ExitCode> {
    // On a spawned cluster, the arena runs on its first node, its state kept in Redis.
    let cluster = args.spawn_cluster.is_some();
    let (servers, started) = servers_for_run(args, entrants, cluster).await?;
    let plan = ArenaPlan {
        entrants,
        bot: args.arena_bot.clone(),
        preset: args.preset.clone(),
        duration: shape.duration,
    };
    let r = run_arena(&servers, plan).await?;
    drop(started);
    println!("{}", describe_arena(&r));
    Ok(if r.games > 0 && r.errors.total() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What a run started (nothing when the servers were given), stopped when dropped.
#[derive(Debug, Default)]
struct Started {
    _one: Option<Child>,
    _cluster: Option<SpawnedCluster>,
}

impl Started {
    /// `fault` aimed at the spawned cluster's first node or its Redis.
    fn strike(&self, fault: Option<Fault>) -> Option<Strike> {
        let (fault, cluster) = (fault?, self._cluster.as_ref()?);
        let pid = if fault.strikes_redis() {
            cluster.redis.pid
        } else {
            cluster.nodes.first()?.pid
        };
        Some(Strike { fault, pid })
    }
}

/// The servers of one game run and the processes to watch: the ones given, a fresh server, or
/// (`split`) a fresh cluster.
async fn servers_for_run(
    args: &Args,
    rooms: usize,
    split: bool,
) -> anyhow::Result<(Servers, Started)> {
    let addrs = args.source_addrs();
    if split && let Some(n) = args.spawn_cluster {
        let redis_bin = args
            .redis_bin
            .clone()
            .unwrap_or_else(|| PathBuf::from(cluster::REDIS_SERVER));
        let spawned =
            cluster::spawn_cluster(&redis_bin, &launch(args, rooms, false), n.into()).await?;
        let mut targets = Vec::new();
        let mut processes = Vec::new();
        for (i, node) in spawned.nodes.iter().enumerate() {
            targets.push(Target::parse(&node.url, addrs)?);
            processes.push(Watched {
                name: format!("node {}", i + 1),
                pid: node.pid,
            });
        }
        processes.push(Watched {
            name: "redis".to_owned(),
            pid: spawned.redis.pid,
        });
        let servers = Servers {
            targets,
            processes,
            redis: Some(spawned.redis.url.clone()),
        };
        let started = Started {
            _cluster: Some(spawned),
            ..Started::default()
        };
        return Ok((servers, started));
    }
    if !args.server.is_empty() {
        let targets = args
            .server
            .iter()
            .map(|url| Target::parse(url, addrs))
            .collect::<Result<Vec<_>, _>>()?;
        let processes = args
            .server_pid
            .iter()
            .enumerate()
            .map(|(i, &pid)| Watched {
                name: if args.server.len() == 1 {
                    "server".to_owned()
                } else {
                    format!("node {}", i + 1)
                },
                pid,
            })
            .collect();
        let servers = Servers {
            targets,
            processes,
            redis: None,
        };
        return Ok((servers, Started::default()));
    }
    let child = spawn_one(args, rooms, false).await?;
    let servers = Servers::one(Target::parse(&child.url, addrs)?, Some(child.pid));
    let started = Started {
        _one: Some(child),
        ..Started::default()
    };
    Ok((servers, started))
}

/// A fresh server for one run (serving the test-only echo path too, if asked).
async fn spawn_one(args: &Args, rooms: usize, echo_path: bool) -> anyhow::Result<Child> {
    Ok(process::spawn_server(&launch(args, rooms, echo_path))
        .await
        .map_err(SpawnServerError)?)
}

/// How this run starts a server (or each node of a cluster).
fn launch(args: &Args, rooms: usize, echo_path: bool) -> ServerLaunch {
    ServerLaunch {
        program: args
            .server_bin
            .clone()
            .unwrap_or_else(process::default_server_bin),
        // The login mode's connections come on top of the games', and so may every pairing
        // player's (each holds its connection only until seated).
        connections: args.connections
            + args.login.map_or(0, |_| args.login_connections)
            + args.pairing.unwrap_or(0),
        rooms,
        log: args.server_log.clone(),
        echo_path: echo_path.then(|| ECHO_PATH.to_owned()),
        threads: args.server_threads,
        cluster: None,
    }
}

/// Whether Linux's scheduler autogroups are on: each session then gets an equal share of the
/// CPUs, and `nice` only orders the processes within one session.
fn autogroup_on() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .is_ok_and(|v| v.trim() == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_flags_take_seconds_or_the_duration_syntax() {
        let args = Args::try_parse_from([
            "jchomp-bench",
            "--duration",
            "1500ms",
            "--warmup",
            "0.5",
            "--drain",
            "1m",
        ])
        .unwrap();
        assert_eq!((args.duration, args.warmup, args.drain), (1.5, 0.5, 60.0));
        let err = Args::try_parse_from(["jchomp-bench", "--duration", "soon"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a time such as"), "{err}");
    }
}
