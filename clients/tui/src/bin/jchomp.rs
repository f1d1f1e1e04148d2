//! `jchomp`: the JChomp terminal client. All the work is in the library's `run` module.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    match jchomp_tui::cli::Cli::try_parse() {
        Ok(cli) => jchomp_tui::run::main(cli).await,
        Err(e) => jchomp_tui::run::usage_error(e),
    }
}
