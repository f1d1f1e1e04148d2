//! The subcommands of `jchomp-bot` and the errors they report.

mod perft;

use clap::{Parser, Subcommand};

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
}

/// Runs one parsed command line, printing to standard output.
pub fn run(cli: Cli) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Perft(args) => perft::run(&args, &mut out),
    }
}
