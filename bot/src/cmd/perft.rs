//! `jchomp-bot perft`: leaf counts of the game tree, optionally split by first selection.

use jchomp_protocol::board_args::BoardArgs;
use jchomp_rules::{Position, divide, perft};
use std::io::Write;
use std::time::Instant;

/// Flags of `perft`.
#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Plies to count to.
    #[arg(long)]
    depth: u32,
    /// Print the count under each first selection (`R,C N`) before the total.
    #[arg(long)]
    divide: bool,
}

/// Prints the count (and with `--divide` the split) to `out`; the last line is `nodes N`.
pub fn run(args: &PerftArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let config = args.board.config()?;
    let start = Position::start(&config);
    let clock = Instant::now();
    let nodes = if args.divide {
        let split = divide(&config, &start, args.depth);
        for (cell, n) in &split {
            writeln!(out, "{cell} {n}")?;
        }
        if args.depth == 0 {
            1
        } else {
            split.iter().map(|(_, n)| n).sum()
        }
    } else {
        perft(&config, &start, args.depth)
    };
    let secs = clock.elapsed().as_secs_f64();
    writeln!(
        out,
        "time {:.3} s ({:.0} leaves/s)",
        secs,
        nodes as f64 / secs.max(1e-9)
    )
    .and_then(|()| writeln!(out, "nodes {nodes}"))?;
    Ok(())
}
