//! `jchomp-bot play`: the bot client. Joins a room (or creates one, or waits to be paired, or
//! enters a tournament the server runs) on a server and plays, with a built-in bot or an
//! external engine (`--engine`, docs/ENGINE.md).

use super::classic_flag::ClassicDbFlag;
use jchomp_bot::bridge::EngineSeat;
use jchomp_bot::client::{Contestant, PlayOptions, Target, play, verdict};
use jchomp_bot::entrant::play_tournament;
use jchomp_bot::jep_runner::{EngineSetup, Io, Stderr};
use jchomp_bot::tournament::participant::EngineSpec;
use jchomp_engine::BotSpec;
use jchomp_engine::classic::{Availability, answers_for};
use jchomp_engine::spec::MAX_LEVEL;
use jchomp_protocol::board_args::BoardArgs;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::server_url::parse_server;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Flags of `play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The server: host:port, or a ws://, wss://, http:// or https:// URL (the path /ws is
    /// added when the URL has none).
    #[arg(
        long,
        value_name = "ADDRESS",
        env = "JCHOMP_SERVER",
        default_value = "ws://127.0.0.1:7777/ws",
        value_parser = parse_server
    )]
    server: String,
    /// Room to join.
    #[arg(
        long,
        value_name = "ID",
        required_unless_present_any = ["create", "seek", "tournament"],
        conflicts_with_all = ["create", "seek", "tournament"]
    )]
    room: Option<String>,
    /// Enter this tournament the server runs (needs --token: a bot account enters) and play
    /// every game it is seated in until the tournament is over; the last line is its final
    /// standing.
    #[arg(long, value_name = "ID", requires = "token", conflicts_with_all = ["create", "seek"])]
    tournament: Option<String>,
    /// Create a room with the board flags and wait for opponents.
    #[arg(long, conflicts_with = "seek")]
    create: bool,
    /// Wait in the server's quick-pairing pool of this preset (`duel`, `blitz`, `classic`,
    /// `three`, `four`: the server's `list_presets`) and play the game it is paired into; the
    /// next game seeks again.
    #[arg(long, value_name = "PRESET")]
    seek: Option<String>,
    /// With --seek: server bots may take the empty seats once the server's patience runs out.
    #[arg(long, requires = "seek")]
    seek_bots: bool,
    #[command(flatten)]
    board: BoardArgs,
    /// Time for each move in a created room (`30s`, `1500ms`, `2m`; a bare number is seconds),
    /// as `jchomp create --move-time` takes it; none by default.
    #[arg(long, value_name = "TIME", value_parser = jchomp_engine::duration::parse_move_time)]
    move_time: Option<u64>,
    /// Make the created room rated (needs --token: only players with accounts may sit).
    #[arg(long, requires = "token")]
    rated: bool,
    /// The old spelling of --move-time, in milliseconds.
    #[arg(long, value_name = "MS", hide = true, conflicts_with = "move_time")]
    move_time_ms: Option<u64>,
    /// Display name [default: jchomp-bot, or the engine's name].
    #[arg(long)]
    name: Option<String>,
    /// A bot account's API token (from the server's `create_bot`): the bot plays under its
    /// account and may sit in rated rooms. Best given in the environment, out of the process
    /// list.
    #[arg(long, env = "JCHOMP_BOT_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The bot (random, greedy, search:depth=N, search:nodes=N, search:time=250ms, mcts:nodes=N,
    /// mcts:time=250ms, brs:depth=N, brs:nodes=N, brs:time=250ms, maxn:nodes=N, level:1..5).
    #[arg(long, default_value = "level:3", value_parser = BotSpec::parse)]
    bot: BotSpec,
    /// Play with an external engine speaking the JChomp engine protocol (docs/ENGINE.md)
    /// instead of a bot: name=NAME,cmd=COMMAND[,dir=DIR][,arg=ARG…][,option.NAME=VALUE…]. It
    /// is started once and kept for every game.
    #[arg(long, value_name = "SPEC", value_parser = EngineSpec::parse, conflicts_with = "bot")]
    engine: Option<EngineSpec>,
    /// The engine's time per move in a room without a move timer (in a room with one, the
    /// timer less --margin-ms).
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = jchomp_engine::duration::parse_move_time)]
    move_time_default: u64,
    /// Milliseconds of the room's move timer kept for the network: the engine is given the
    /// rest (at least half the timer).
    #[arg(long, value_name = "MS", default_value_t = 200)]
    margin_ms: u64,
    /// Append the engine's standard error to this file [default: this program's standard
    /// error].
    #[arg(long, value_name = "FILE", requires = "engine")]
    engine_log: Option<PathBuf>,
    /// Echo every line between this program and the engine to standard error, each after the
    /// engine's name and the milliseconds since it started.
    #[arg(long, requires = "engine")]
    debug: bool,
    /// With --create: a bot run by the server takes the next free seat of each room created
    /// (a spec the server knows: random, greedy, level:3, …); repeatable.
    #[arg(long, value_name = "SPEC", requires = "create")]
    add_bot: Vec<String>,
    /// Games to play in the same configuration.
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Seed of the bot's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Longest wait for opponents or moves, in seconds.
    #[arg(long, default_value_t = 600)]
    wait_secs: u64,
    #[command(flatten)]
    classic: ClassicDbFlag,
}

/// How `--engine` is started, logged and timed.
fn engine_seat(args: &PlayArgs, spec: &EngineSpec) -> anyhow::Result<EngineSeat> {
    let stderr = match &args.engine_log {
        Some(path) => Stderr::Append(path.clone()),
        None => Stderr::Inherit,
    };
    Ok(EngineSeat {
        name: spec.name.clone(),
        setup: EngineSetup {
            launch: spec.launch()?,
            options: spec.options.clone(),
            io: Io {
                label: spec.name.clone(),
                stderr,
                debug: args.debug,
            },
        },
        move_time_default: Duration::from_millis(args.move_time_default),
        margin: Duration::from_millis(args.margin_ms),
    })
}

/// Plays and prints one line per event; then `played N won W tied T lost L` and, with
/// `--tournament`, the final standing.
pub fn run(args: &PlayArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let library = args.classic.library();
    let target = match (&args.room, &args.seek) {
        (Some(room), _) => Target::Join(room.clone()),
        (None, Some(preset)) => Target::Seek {
            preset: preset.clone(),
            bots: args.seek_bots,
        },
        (None, None) => {
            let config = args.board.config()?;
            if args.bot == BotSpec::Level(MAX_LEVEL) && answers_for(&config) {
                // Read while the room waits for opponents.
                let _ = library.get();
            }
            Target::Create(ConfigJson {
                rated: args.rated,
                ..ConfigJson::new(&config, args.move_time.or(args.move_time_ms))
            })
        }
    };
    let (contestant, name) = match &args.engine {
        Some(spec) => (
            Contestant::Engine(engine_seat(args, spec)?),
            spec.name.as_str(),
        ),
        None => (Contestant::Bot(args.bot), "jchomp-bot"),
    };
    let options = PlayOptions {
        url: args.server.clone(),
        target,
        name: args.name.clone().unwrap_or_else(|| name.to_string()),
        token: args.token.clone(),
        contestant,
        add_bots: args.add_bot.clone(),
        games: args.games,
        seed: args.seed,
        wait: Duration::from_secs(args.wait_secs),
        reconnects: 20,
        classic: Some(library.clone()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    if let Some(id) = &args.tournament {
        // `block_on` polls on this thread, which already holds the (reentrant) stdout lock.
        let entered = runtime.block_on(async {
            play_tournament(&options, id, &mut |line| {
                println!("{line}");
            })
            .await
        })?;
        writeln!(out, "{}", tally(&entered.played))?;
        writeln!(out, "{}", entered.summary())?;
        return Ok(());
    }
    let played = runtime.block_on(async {
        play(&options, &mut |line| {
            println!("{line}");
        })
        .await
    })?;
    if let Availability::Failed(why) = library.availability() {
        eprintln!("jchomp-bot: level:5 searched in classic games: {why}");
    }
    writeln!(out, "{}", tally(&played))?;
    Ok(())
}

/// `played N won W tied T lost L`.
fn tally(played: &[jchomp_bot::client::Played]) -> String {
    let count = |v: &str| played.iter().filter(|p| verdict(p.score) == v).count();
    format!(
        "played {} won {} tied {} lost {}",
        played.len(),
        count("won"),
        count("tie"),
        count("lost")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        play: PlayArgs,
    }

    fn move_time(flags: &[&str]) -> Result<Option<u64>, String> {
        let argv = ["jchomp-bot", "--create"].iter().chain(flags);
        Flags::try_parse_from(argv)
            .map(|f| f.play.move_time.or(f.play.move_time_ms))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_move_time_takes_the_one_duration_syntax_and_the_old_flag_still_works() {
        assert_eq!(move_time(&["--move-time", "30s"]), Ok(Some(30_000)));
        assert_eq!(move_time(&["--move-time", "1500ms"]), Ok(Some(1500)));
        assert_eq!(move_time(&["--move-time", "2"]), Ok(Some(2000)));
        assert_eq!(move_time(&["--move-time-ms", "250"]), Ok(Some(250)));
        assert_eq!(move_time(&[]), Ok(None));
        assert!(move_time(&["--move-time", "0"]).is_err());
        assert!(move_time(&["--move-time", "1s", "--move-time-ms", "9"]).is_err());
    }
}
