//! `jchomp-bot match`: a series of games between bot specs with the seats rotated, printing
//! each competitor's score.

use jchomp_bot::BotSpec;
use jchomp_bot::arena::play_series;
use jchomp_bot::board_args::BoardArgs;
use std::io::Write;
use std::time::Instant;

/// Flags of `match`.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// One competitor per seat (give `--players` of them), e.g. `--bot level:3 --bot random`.
    #[arg(long = "bot", value_name = "SPEC", required = true, value_parser = BotSpec::parse)]
    bots: Vec<BotSpec>,
    /// Games to play; the seats rotate every game.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Seed of the first game (game g uses seed + g).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Plays the series and prints `SPEC score S/G (P%) losses L` per competitor.
pub fn run(args: &MatchArgs, out: &mut impl Write) -> Result<(), String> {
    let config = args.board.config().map_err(|e| e.to_string())?;
    if args.bots.len() != config.players() as usize {
        return Err(format!(
            "give one --bot per seat: {} players, {} bots",
            config.players(),
            args.bots.len()
        ));
    }
    let clock = Instant::now();
    let standings =
        play_series(&config, &args.bots, args.games, args.seed).map_err(|e| e.to_string())?;
    for s in standings {
        writeln!(
            out,
            "{} score {}/{} ({:.1}%) losses {}",
            s.spec,
            s.score,
            s.games,
            100.0 * s.score / f64::from(s.games.max(1)),
            s.losses
        )
        .map_err(|e| e.to_string())?;
    }
    writeln!(out, "time {:.1} s", clock.elapsed().as_secs_f64()).map_err(|e| e.to_string())
}
