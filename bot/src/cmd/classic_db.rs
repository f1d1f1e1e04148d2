//! `jchomp-bot classic-db build`: the exact database of every classic position inside a box (the
//! whole 15×15 by default), written to a file, with a progress bar on a terminal.

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jchomp_engine::classic::{ClassicDb, MAX_SIDE, Ranker};
use jchomp_protocol::board_args::parse_pair_x;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `classic-db`.
#[derive(Debug, clap::Args)]
pub struct ClassicDbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Debug, clap::Subcommand)]
enum DbCommand {
    /// Builds the value and plies of every classic position inside a box and writes them to a
    /// file (last line: `positions N p-positions M`).
    Build(BuildArgs),
}

/// Flags of `classic-db build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The box, ROWSxCOLS (each 1–15): every position that fits in it.
    #[arg(long, value_name = "ROWSxCOLS", default_value = "15x15", value_parser = parse_pair_x)]
    size: (i64, i64),
    /// The file to write. Default: classic-ROWSxCOLS.db in the current directory
    /// (classic-15x15.db for the whole database, the file solve, analyze and the bots read).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// No progress bar (it is only ever drawn on a terminal).
    #[arg(long)]
    quiet: bool,
}

/// The file a box's database goes to when `--out` is not given.
pub fn default_file(rows: usize, cols: usize) -> PathBuf {
    PathBuf::from(format!("classic-{rows}x{cols}.db"))
}

/// Runs `classic-db`'s subcommand.
pub fn run(args: &ClassicDbArgs, out: &mut impl Write) -> anyhow::Result<()> {
    match &args.command {
        DbCommand::Build(build) => run_build(build, out),
    }
}

/// Builds, writes and prints; the last line is `positions N p-positions M`.
fn run_build(args: &BuildArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (rows, cols) = args.size;
    let side = 1..=MAX_SIDE as i64;
    let ranker = match (side.contains(&rows) && side.contains(&cols))
        .then(|| Ranker::new(rows as usize, cols as usize))
        .flatten()
    {
        Some(r) => r,
        None => bail!("the box must be 1–15 rows by 1–15 columns, got {rows}x{cols}"),
    };
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_file(ranker.rows(), ranker.cols()));
    // Positions as the last line counts them: the empty board (rank 0) left out.
    let total = ranker.count() - 1;
    let bar = progress_bar(!args.quiet, total);
    let clock = Instant::now();
    let db = ClassicDb::build(ranker, &mut |done| bar.set_position(done.min(total)));
    let built = clock.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let clock = Instant::now();
    db.save(&path)?;
    let saved = clock.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path)
        .with_context(|| format!("cannot read back {}", path.display()))?
        .len();
    writeln!(out, "built {rows}x{cols} in {built:.2} s")?;
    writeln!(
        out,
        "wrote {} ({bytes} bytes) in {saved:.2} s",
        path.display()
    )?;
    writeln!(
        out,
        "positions {} p-positions {}",
        db.positions(),
        db.p_positions()
    )?;
    Ok(())
}

/// A bar of positions done, drawn on standard error only when it is a terminal.
fn progress_bar(wanted: bool, total: u64) -> ProgressBar {
    let target = if wanted {
        ProgressDrawTarget::stderr_with_hz(10)
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    if let Ok(style) = ProgressStyle::with_template(
        "[{bar:30}] {human_pos}/{human_len} positions  {elapsed}  ETA {eta}",
    ) {
        bar.set_style(style.progress_chars("#>-"));
    }
    bar
}
