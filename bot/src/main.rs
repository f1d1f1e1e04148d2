//! `jchomp-bot`: perft, solve, analyze, the classic database, tournaments, the bot client and the
//! reference engine (docs/ENGINE.md), as subcommands. A thin shell over the `cmd` modules; an
//! error ends it with `jchomp-bot: ` and the error's causes.

mod cmd;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cmd::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jchomp-bot: {e:#}");
            ExitCode::FAILURE
        }
    }
}
