//! `jchomp-bot classic`: tools for classic Chomp positions in the row-length representation —
//! `transpose` turns a position across its diagonal (`[5,4,3]` → `[3,3,3,2,1]`).

use jchomp_engine::classic::Shape;
use std::io::Write;

/// Flags of `classic`.
#[derive(Debug, clap::Args)]
pub struct ClassicArgs {
    #[command(subcommand)]
    command: ClassicCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ClassicCommand {
    /// Prints the position with rows and columns swapped, such as `[3,3,3,2,1]` for `5,4,3`.
    Transpose {
        /// Row lengths, top row first: `5,4,3` or `[5,4,3]` (each row no longer than the one
        /// above, at most 15 rows of 15).
        #[arg(value_name = "ROWS", value_parser = parse_shape)]
        position: Shape,
    },
}

/// A position in the row-length representation.
fn parse_shape(arg: &str) -> Result<Shape, String> {
    arg.parse::<Shape>().map_err(|e| e.to_string())
}

/// Runs `classic`'s subcommand.
pub fn run(args: &ClassicArgs, out: &mut impl Write) -> anyhow::Result<()> {
    match &args.command {
        ClassicCommand::Transpose { position } => {
            writeln!(out, "[{}]", position.transpose())?;
        }
    }
    Ok(())
}
