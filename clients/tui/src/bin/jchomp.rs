//! `jchomp`: the JChomp terminal client. All the work is in the library's `run` module.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    jchomp_tui::run::main(jchomp_tui::cli::Cli::parse()).await
}
