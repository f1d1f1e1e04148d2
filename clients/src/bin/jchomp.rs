//! `jchomp`: the JChomp terminal client. All the work is in the library's `run` module.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    jchomp_clients::run::main(jchomp_clients::cli::Cli::parse()).await
}
