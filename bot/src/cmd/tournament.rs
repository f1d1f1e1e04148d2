//! `jchomp-bot tournament`: tournaments between bots (round robin or gauntlet), with standings,
//! Elo, an optional SPRT, an output directory that `--resume` continues, and Ctrl-C handling.

use super::classic_flag::ClassicDbFlag;
use anyhow::{Context, bail};
use clap::ArgMatches;
use jchomp_bot::tournament::export::export;
use jchomp_bot::tournament::participant::{EngineSpec, Participant};
use jchomp_bot::tournament::report;
use jchomp_bot::tournament::rules::{OptionFlags, Rules};
use jchomp_bot::tournament::schedule::Seating;
use jchomp_bot::tournament::sprt::SprtParams;
use jchomp_bot::tournament::starts::{Starts, parse_openings};
use jchomp_bot::tournament::time_control::TimeSetting;
use jchomp_bot::tournament::{self, Length, Options, Outcome, Settings, Stop};
use jchomp_engine::classic::Availability;
use jchomp_engine::spec::BotSpec;
use jchomp_protocol::board_args::{parse_cell, parse_pair_x, parse_play, parse_variant};
use jchomp_rules::{Play, Variant};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Flags of `tournament`.
#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    /// A bot spec (random, greedy, search:depth=N, search:nodes=N, search:time=250ms,
    /// mcts:nodes=N, mcts:time=250ms, brs:depth=N, brs:nodes=N, brs:time=250ms, maxn:nodes=N,
    /// level:1 … level:5); give two or more. The first is the reference for Elo.
    #[arg(long = "bot", value_name = "SPEC", value_parser = BotSpec::parse)]
    bots: Vec<BotSpec>,
    /// An external engine speaking the JChomp engine protocol (docs/ENGINE.md):
    /// name=NAME,cmd=COMMAND[,dir=DIR][,arg=ARG…][,option.NAME=VALUE…]; repeatable. With the
    /// --bot flags, participants count in the order given.
    #[arg(long = "engine", value_name = "SPEC", value_parser = EngineSpec::parse)]
    engines: Vec<EngineSpec>,
    /// A clock for every seat of every game, BASE+INC (10s+100ms) or BASE.
    #[arg(long, value_name = "BASE+INC", value_parser = TimeSetting::parse_clock, conflicts_with = "st")]
    tc: Option<TimeSetting>,
    /// A fixed time for every move (100ms).
    #[arg(long, value_name = "TIME", value_parser = TimeSetting::parse_move_time)]
    st: Option<TimeSetting>,
    /// Echo every line between the runner and its engines to standard error, each after the
    /// engine's name and the milliseconds since it started.
    #[arg(long)]
    debug: bool,
    /// The first bot against each of the others, instead of a round robin.
    #[arg(long)]
    gauntlet: bool,
    /// Fix the board size, ROWSxCOLS (each 4–15; with --variant classic each 1–15 and at least
    /// 2 cells, such as 3x5); drawn per round otherwise (4–15 each).
    #[arg(long, value_name = "ROWSxCOLS", value_parser = parse_pair_x)]
    size: Option<(i64, i64)>,
    /// Fix the eat size, ROWSxCOLS (each 1–3); drawn per round otherwise.
    #[arg(long, value_name = "ROWSxCOLS", value_parser = parse_pair_x)]
    eat: Option<(i64, i64)>,
    /// Fix a poison cell, ROW,COL (repeat for up to 4); 1–4 drawn per round otherwise.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_cell)]
    poison: Vec<(i64, i64)>,
    /// The game: `jchomp` (rectangles of the eat size), `classic` (a selection eats
    /// everything below and right of it; no eat size) or `breaks` (a side broken off along a
    /// grid line; one poison cell, no eat size) [default: jchomp].
    #[arg(long, value_name = "VARIANT", value_parser = parse_variant, conflicts_with = "openings")]
    variant: Option<Variant>,
    /// Every game in misere (the eater of poison loses) or normal play (the eater of a marked
    /// cell wins), openings included [default: misere, or each opening's own].
    #[arg(long, value_name = "PLAY", value_parser = parse_play)]
    play: Option<Play>,
    /// Ban bites of a k×k square of cells in every game, openings included (drawn eat sizes
    /// are then never square).
    #[arg(long)]
    no_square_bites: bool,
    /// Seats per game, 2–4 [default: 2].
    #[arg(long)]
    players: Option<u8>,
    /// Seat orders per start configuration: `rotations` (one per seat; keeps who moves after
    /// whom) or `all` (every order: 6 with three seats, 24 with four) [default: rotations].
    #[arg(long, value_name = "ORDERS", value_parser = Seating::parse)]
    seating: Option<Seating>,
    /// Start configurations from a file: one JSON configuration object per line, e.g.
    /// {"rows":6,"cols":7,"eat":[1,2],"poison":[[0,0]]}; round r uses line r (cyclically).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["size", "eat", "poison"])]
    openings: Option<PathBuf>,
    /// Seed of the configuration draws and of the bots' random choices [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Total games, rounded up to whole seat rotations [default: 100].
    #[arg(long, conflicts_with = "rounds")]
    games: Option<u64>,
    /// Rounds: every group of bots plays every seat rotation of one start configuration.
    #[arg(long)]
    rounds: Option<u64>,
    /// Games played at once [default: the number of cores].
    #[arg(long)]
    concurrency: Option<usize>,
    /// Write tournament.json, games.jsonl and results.json into this directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Continue the tournament in DIR with its own settings.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    resume: Option<PathBuf>,
    /// Stop a two-bot match once decided: elo0=0,elo1=10,alpha=0.05,beta=0.05.
    #[arg(long, value_name = "PARAMS", value_parser = SprtParams::parse)]
    sprt: Option<SprtParams>,
    /// Extra milliseconds a time-limited bot may take beyond its budget before it loses
    /// [default: 100].
    #[arg(long, value_name = "MS")]
    margin_ms: Option<u64>,
    /// Play every game in a room of this server (host:port or a ws://, http:// … URL) instead
    /// of in-process.
    #[arg(long, value_name = "ADDRESS", value_parser = jchomp_protocol::server_url::parse_server)]
    server: Option<String>,
    /// Read a tournament that the server at ADDRESS ran (its standings and every game's
    /// record) and write it into --out DIR as this command's own output, without playing.
    #[arg(
        long = "from-server",
        num_args = 2,
        value_names = ["ADDRESS", "ID"],
        requires = "out",
        conflicts_with = "resume"
    )]
    from_server: Option<Vec<String>>,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    classic: ClassicDbFlag,
}

impl TournamentArgs {
    /// Whether any flag that defines a tournament was given (refused with `--resume`).
    fn defines_settings(&self) -> bool {
        !self.bots.is_empty()
            || !self.engines.is_empty()
            || self.tc.is_some()
            || self.st.is_some()
            || self.gauntlet
            || self.size.is_some()
            || self.eat.is_some()
            || self.variant.is_some()
            || self.play.is_some()
            || self.no_square_bites
            || !self.poison.is_empty()
            || self.players.is_some()
            || self.seating.is_some()
            || self.openings.is_some()
            || self.seed.is_some()
            || self.games.is_some()
            || self.rounds.is_some()
            || self.sprt.is_some()
            || self.margin_ms.is_some()
            || self.server.is_some()
    }

    /// The settings these flags describe (`matches`: what they were parsed from).
    fn settings(&self, matches: &ArgMatches) -> anyhow::Result<Settings> {
        let players = self.players.unwrap_or(2);
        let flags = OptionFlags {
            play: self.play,
            no_square_bites: self.no_square_bites,
        };
        let starts = match &self.openings {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
                Starts::Openings {
                    configs: parse_openings(&text, players, flags)?,
                }
            }
            None => Starts::Drawn {
                rules: Rules {
                    variant: self.variant.unwrap_or_default(),
                    options: flags.options(),
                },
                size: self.size.map(|(r, c)| [r, c]),
                eat: self.eat.map(|(r, c)| [r, c]),
                poison: self.poison.iter().map(|&(r, c)| [r, c]).collect(),
            },
        };
        let length = match (self.games, self.rounds, self.sprt) {
            (Some(n), _, _) => Length::Games(n),
            (None, Some(n), _) => Length::Rounds(n),
            (None, None, Some(_)) => Length::UntilDecided,
            (None, None, None) => Length::Games(tournament::settings::DEFAULT_GAMES),
        };
        Ok(Settings {
            bots: self.participants(matches),
            gauntlet: self.gauntlet,
            players,
            seating: self.seating.unwrap_or_default(),
            starts,
            seed: self.seed.unwrap_or(1),
            length,
            sprt: self.sprt,
            margin_ms: self.margin_ms.unwrap_or(100),
            server: self.server.clone(),
            time_control: self.tc.or(self.st),
        })
    }

    /// The bots and engines in the order their flags were given on the command line, read from
    /// the `matches` these flags were parsed from (a value whose place is unknown comes last).
    fn participants(&self, matches: &ArgMatches) -> Vec<Participant> {
        let places = |id: &str| {
            let known = matches.indices_of(id).into_iter().flatten();
            known.chain(std::iter::repeat(usize::MAX))
        };
        let bots = self.bots.iter().cloned().map(Participant::Bot);
        let engines = self.engines.iter().cloned().map(Participant::Engine);
        let mut placed: Vec<(usize, Participant)> = places("bots")
            .zip(bots)
            .chain(places("engines").zip(engines))
            .collect();
        placed.sort_by_key(|(place, _)| *place);
        placed.into_iter().map(|(_, p)| p).collect()
    }
}

/// Raises `flag` on the first Ctrl-C; a second one ends the process at once.
fn catch_ctrl_c(flag: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                flag.store(true, Ordering::Relaxed);
                eprintln!("\ninterrupted: finishing what is done (Ctrl-C again to quit at once)");
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
    });
}

/// Prints the standings, the pentanomial and SPRT lines and a summary.
fn print(outcome: &Outcome, dir: Option<&PathBuf>, out: &mut impl Write) -> std::io::Result<()> {
    write!(out, "{}", report::table(&outcome.standings))?;
    write!(out, "{}", report::pairings(&outcome.standings))?;
    let engine_failures: Vec<String> = outcome
        .settings
        .bots
        .iter()
        .zip(&outcome.standings.bots)
        .filter(|(p, line)| p.engine().is_some() && !line.failures.describe().is_empty())
        .map(|(_, line)| format!("{}: {}", line.name, line.failures.describe()))
        .collect();
    if !engine_failures.is_empty() {
        writeln!(out, "engine failures: {}", engine_failures.join("; "))?;
    }
    if let Some(line) = report::pentanomial_line(&outcome.standings) {
        writeln!(out, "{line}")?;
    }
    if let Some(line) = report::sprt_line(&outcome.standings) {
        writeln!(out, "{line}")?;
    }
    let secs = outcome.elapsed.as_secs_f64();
    writeln!(
        out,
        "{} games played in {:.2} s ({:.0} games/s), {} in all",
        outcome.played,
        secs,
        outcome.played as f64 / secs.max(1e-9),
        outcome.standings.games
    )?;
    match (outcome.stop, dir) {
        (Stop::Interrupted, Some(d)) => writeln!(
            out,
            "interrupted; continue with: jchomp-bot tournament --resume {}",
            d.display()
        ),
        (Stop::Interrupted, None) => writeln!(out, "interrupted"),
        _ => Ok(()),
    }
}

/// Runs the tournament of `args` (parsed from `matches`) and prints its standings to `out`.
pub fn run(
    args: &TournamentArgs,
    matches: &ArgMatches,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let interrupt = Arc::new(AtomicBool::new(false));
    catch_ctrl_c(Arc::clone(&interrupt));
    let options = Options {
        concurrency: args
            .concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
        out: args.out.clone(),
        progress: !args.quiet,
        interrupt,
        classic: Some(args.classic.library()),
        debug: args.debug,
    };
    if let Some(from) = &args.from_server {
        return export_from(args, from, &options, out);
    }
    let (outcome, dir) = match &args.resume {
        Some(dir) => {
            if args.defines_settings() {
                bail!(
                    "--resume takes the settings stored in {}; only --concurrency, --quiet, \
                     --debug and --classic-db may be given with it",
                    dir.display()
                );
            }
            (tournament::resume(dir, &options)?, Some(dir))
        }
        None => (
            tournament::run(args.settings(matches)?, &options)?,
            args.out.as_ref(),
        ),
    };
    print(&outcome, dir, out)?;
    if let Some(Availability::Failed(why)) = options.classic.as_ref().map(|l| l.availability()) {
        eprintln!("jchomp-bot: level:5 searched in classic games: {why}");
    }
    Ok(())
}

/// `--from-server ADDRESS ID --out DIR`: writes the server's tournament into DIR and prints
/// its standings as an offline tournament's.
fn export_from(
    args: &TournamentArgs,
    from: &[String],
    options: &Options,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let (Some(dir), [address, id]) = (&args.out, from) else {
        bail!("--from-server takes ADDRESS ID and needs --out DIR");
    };
    if args.defines_settings() {
        bail!(
            "--from-server takes the tournament as the server ran it; only --out, --quiet and \
             --concurrency may be given with it"
        );
    }
    let url = jchomp_protocol::server_url::parse_server(address)?;
    let outcome = export(&url, id, dir, options)?;
    if let Some(run) = outcome.settings.starts.server_run() {
        writeln!(
            out,
            "tournament {id} ({:?}) read from {url}: {} games written to {}",
            run.view.spec.name,
            run.games(),
            dir.display()
        )?;
    }
    print(&outcome, Some(dir), out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches, Parser};

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        tournament: TournamentArgs,
    }

    /// The participants' names, in order, of a command line.
    fn order(line: &str) -> Vec<String> {
        let argv = std::iter::once("jchomp-bot").chain(line.split_whitespace());
        let matches = Flags::command().get_matches_from(argv);
        let flags = Flags::from_arg_matches(&matches).unwrap();
        let participants = flags.tournament.participants(&matches);
        participants
            .iter()
            .map(|p| match p {
                Participant::Bot(b) => b.to_string(),
                Participant::Engine(e) => e.name.clone(),
            })
            .collect()
    }

    #[test]
    fn participants_keep_the_order_of_the_command_line() {
        assert_eq!(
            order("--engine name=a,cmd=x --bot random --engine=name=b,cmd=y --bot greedy"),
            ["a", "random", "b", "greedy"]
        );
        assert_eq!(
            order("--bot level:2 --games 4 --engine name=e,cmd=x --bot=random"),
            ["level:2", "e", "random"]
        );
        assert_eq!(order("--bot random --bot greedy"), ["random", "greedy"]);
        assert_eq!(order("--engine name=e,cmd=x --bot random"), ["e", "random"]);
    }
}
