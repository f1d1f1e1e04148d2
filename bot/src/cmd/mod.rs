//! The subcommands of `jchomp-bot` and the errors they report.

mod analyze;
mod classic;
mod classic_db;
mod classic_flag;
mod engine;
mod perft;
mod play;
mod solve;
mod start;
mod tournament;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// JChomp bots and analysis tools.
#[derive(Debug, Parser)]
#[command(name = "jchomp-bot", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Counts the leaves of the game tree to a fixed depth (last line: `nodes N`).
    Perft(perft::PerftArgs),
    /// Solves a two-player position exactly, a classic one from the classic database if it is
    /// there (last line: `value win|tie|loss best R,C plies N`).
    Solve(solve::SolveArgs),
    /// Lists every valid selection with its exact value and plies to the end (a classic
    /// position's from the classic database if it is there).
    Analyze(analyze::AnalyzeArgs),
    /// The classic Chomp database: `build` writes the value and plies of every classic
    /// position inside a box (default 15x15, file classic-15x15.db); `list` streams the
    /// positions of a box that are a loss (or a win) for the player to move.
    ClassicDb(classic_db::ClassicDbArgs),
    /// Classic Chomp positions in the row-length representation: `transpose`.
    Classic(classic::ClassicArgs),
    /// Plays a tournament between bots: standings, Elo, SPRT, output directory, resume.
    Tournament(Box<tournament::TournamentArgs>),
    /// Plays on a server: joins a room (or creates one) and plays through the protocol.
    Play(Box<play::PlayArgs>),
    /// Runs a built-in bot as an engine of the JChomp engine protocol (docs/ENGINE.md) over
    /// standard input and output.
    Engine(engine::EngineArgs),
}

/// Parses the command line (clap's own message and exit on an error) and runs it, printing to
/// standard output.
pub fn run() -> anyhow::Result<()> {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Perft(args) => perft::run(&args, &mut out),
        Command::Solve(args) => solve::run(&args, &mut out),
        Command::Analyze(args) => analyze::run(&args, &mut out),
        Command::ClassicDb(args) => classic_db::run(&args, &mut out),
        Command::Classic(args) => classic::run(&args, &mut out),
        Command::Tournament(args) => {
            let matches = matches.subcommand_matches("tournament").unwrap_or(&matches);
            tournament::run(&args, matches, &mut out)
        }
        Command::Play(args) => play::run(&args, &mut out),
        // The engine writes from two threads: this thread must not hold the lock.
        Command::Engine(args) => {
            drop(out);
            engine::run(&args)
        }
    }
}
