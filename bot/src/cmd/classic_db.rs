//! `jchomp-bot classic-db`: `build` writes the exact database of every classic position inside a
//! box (the whole 15×15 by default) to a file, with a progress bar on a terminal; `list` streams
//! every position of a box that is a win (or a loss) for the player to move, in the row-length
//! representation, with its optimal selections on request.

use super::classic_flag::{ClassicDbFlag, name};
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jchomp_engine::classic::{ClassicDb, MAX_SIDE, MoveValue, Ranker, Shape, Value};
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
    /// Lists every position of a box whose player to move loses (or wins), one a line in the
    /// row-length representation with its plies to the end, such as `[3,1] loss 3` (last line:
    /// `positions N listed M`).
    List(ListArgs),
}

/// Which positions `classic-db list` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Listed {
    /// The player to move loses (P-positions: where a winning selection leads).
    Loss,
    /// The player to move wins.
    Win,
    /// Every position.
    All,
}

/// Flags of `classic-db list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The box, ROWSxCOLS (each 1–15): every position that fits in it.
    #[arg(long, value_name = "ROWSxCOLS", default_value = "15x15", value_parser = parse_pair_x)]
    size: (i64, i64),
    /// Which positions: those whose player to move loses, wins, or all.
    #[arg(long, value_enum, default_value_t = Listed::Loss)]
    value: Listed,
    /// Also print each position's optimal selections (the fastest win, or the longest defence)
    /// as `best ROW,COL …`, 0-based from the top-left cell.
    #[arg(long)]
    moves: bool,
    #[command(flatten)]
    db: ClassicDbFlag,
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
        DbCommand::List(list) => run_list(list, out),
    }
}

/// Builds, writes and prints; the last line is `positions N p-positions M`.
fn run_build(args: &BuildArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (rows, cols) = args.size;
    let ranker = box_ranker(rows, cols)?;
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

/// The ranker of a box given on the command line, or why not.
fn box_ranker(rows: i64, cols: i64) -> anyhow::Result<Ranker> {
    let side = 1..=MAX_SIDE as i64;
    match (side.contains(&rows) && side.contains(&cols))
        .then(|| Ranker::new(rows as usize, cols as usize))
        .flatten()
    {
        Some(r) => Ok(r),
        None => bail!("the box must be 1–15 rows by 1–15 columns, got {rows}x{cols}"),
    }
}

/// Streams the box's positions of the value asked for, in the order of their ranks, each as
/// soon as it is looked up: the listing never sits in memory. The database is the file of
/// `--classic-db` when it holds the box, else the box's own, built now (said on standard
/// error).
fn run_list(args: &ListArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (rows, cols) = args.size;
    let ranker = box_ranker(rows, cols)?;
    let db = database_for(&args.db, &ranker)?;
    let mut out = std::io::BufWriter::new(out);
    let mut listed = 0u64;
    for rank in 1..ranker.count() {
        let shape = ranker.unrank(rank);
        let Some(solved) = db.lookup(&shape) else {
            bail!("the database does not hold [{shape}]");
        };
        let wanted = match args.value {
            Listed::Loss => solved.value == Value::Loss,
            Listed::Win => solved.value == Value::Win,
            Listed::All => true,
        };
        if !wanted {
            continue;
        }
        listed += 1;
        write!(out, "[{shape}] {} {}", name(solved.value), solved.plies)?;
        if args.moves {
            write!(out, " best")?;
            for m in optimal(&db, &shape) {
                write!(out, " {},{}", m.row, m.col)?;
            }
        }
        writeln!(out)?;
    }
    writeln!(out, "positions {} listed {listed}", ranker.count() - 1)?;
    out.flush()?;
    Ok(())
}

/// The database that answers for every position of the box: the file's if it holds the whole
/// box (as it is or transposed), else one of the box built now.
fn database_for(flag: &ClassicDbFlag, ranker: &Ranker) -> anyhow::Result<ClassicDb> {
    let corner = Shape::rectangle(ranker.rows(), ranker.cols())?;
    let path = flag.path();
    let why = match ClassicDb::load(&path) {
        Ok(db) if db.lookup(&corner).is_some() => return Ok(db),
        Ok(db) => format!(
            "the database {} ({}x{}) does not hold the box",
            path.display(),
            db.size().0,
            db.size().1
        ),
        Err(e) => e.to_string(),
    };
    eprintln!(
        "building the database of the {}x{} box ({why})",
        ranker.rows(),
        ranker.cols()
    );
    Ok(ClassicDb::build(ranker.clone(), &mut |_| {}))
}

/// Every optimal selection from `shape`: the fastest wins, or (when every selection loses) the
/// longest defences, in row-major order.
fn optimal(db: &ClassicDb, shape: &Shape) -> Vec<MoveValue> {
    let moves = db.analyze(shape).unwrap_or_default();
    let key = |m: &MoveValue| match m.solved.value {
        Value::Win => (0, i32::from(m.solved.plies)),
        Value::Loss => (1, -i32::from(m.solved.plies)),
    };
    let Some(best) = moves.iter().map(key).min() else {
        return moves;
    };
    moves.into_iter().filter(|m| key(m) == best).collect()
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
