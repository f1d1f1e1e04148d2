//! `jchomp-bot play`: the bot client. Joins a room (or creates one) on a server and plays.

use super::classic_flag::ClassicDbFlag;
use jchomp_bot::client::{PlayOptions, Target, play, verdict};
use jchomp_engine::BotSpec;
use jchomp_engine::classic::{Availability, answers_for};
use jchomp_engine::spec::MAX_LEVEL;
use jchomp_protocol::board_args::BoardArgs;
use jchomp_protocol::json::ConfigJson;
use std::io::Write;
use std::time::Duration;

/// Flags of `play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Server URL.
    #[arg(long, value_name = "URL", default_value = "ws://127.0.0.1:7777/ws")]
    server: String,
    /// Room to join.
    #[arg(
        long,
        value_name = "ID",
        required_unless_present = "create",
        conflicts_with = "create"
    )]
    room: Option<String>,
    /// Create a room with the board flags and wait for opponents.
    #[arg(long)]
    create: bool,
    #[command(flatten)]
    board: BoardArgs,
    /// Move timer of a created room, in milliseconds (none by default).
    #[arg(long, value_name = "MS")]
    move_time_ms: Option<u64>,
    /// Display name.
    #[arg(long, default_value = "jchomp-bot")]
    name: String,
    /// The bot (random, greedy, search:depth=N, search:nodes=N, search:time=250ms, mcts:nodes=N,
    /// mcts:time=250ms, level:1..5).
    #[arg(long, default_value = "level:3", value_parser = BotSpec::parse)]
    bot: BotSpec,
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

/// Plays and prints one line per event; the last line is `played N won W tied T lost L`.
pub fn run(args: &PlayArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let library = args.classic.library();
    let target = match &args.room {
        Some(room) => Target::Join(room.clone()),
        None => {
            let config = args.board.config()?;
            if args.bot == BotSpec::Level(MAX_LEVEL) && answers_for(&config) {
                // Read while the room waits for opponents.
                let _ = library.get();
            }
            Target::Create(ConfigJson::new(&config, args.move_time_ms))
        }
    };
    let options = PlayOptions {
        url: args.server.clone(),
        target,
        name: args.name.clone(),
        spec: args.bot,
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
    // `block_on` polls on this thread, which already holds the (reentrant) stdout lock.
    let played = runtime.block_on(async {
        play(&options, &mut |line| {
            println!("{line}");
        })
        .await
    })?;
    if let Availability::Failed(why) = library.availability() {
        eprintln!("jchomp-bot: level:5 searched in classic games: {why}");
    }
    let count = |v: &str| played.iter().filter(|p| verdict(p.score) == v).count();
    writeln!(
        out,
        "played {} won {} tied {} lost {}",
        played.len(),
        count("won"),
        count("tie"),
        count("lost")
    )?;
    Ok(())
}
