//! `jchomp-bot solve`: the exact two-player value, an optimal selection and the plies to the end,
//! from the classic database for the standard classic game when it holds the position, by
//! search otherwise (under the rule options by the engine's options solver, with its limit in
//! words).

use super::classic_flag::{ClassicDbFlag, Found, name};
use super::start::{StartArgs, describe};
use jchomp_engine::search::{MAX_POSITIONS, SolveError, Table, solve, solve_value, standard};
use jchomp_rules::Cell;
use jchomp_rules::Config;
use std::io::Write;
use std::time::Instant;

/// Flags of `solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    start: StartArgs,
    #[command(flatten)]
    classic: ClassicDbFlag,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 512)]
    table_mb: usize,
    /// Only the value and an optimal selection, from the region solver (no plies): the last
    /// line is then `value win|tie|loss best R,C`.
    #[arg(long)]
    value_only: bool,
}

/// Solves and prints; the last line is `value win|tie|loss best R,C plies N`. The standard
/// classic game is answered by the classic database, which says on the line before the last
/// which one.
pub fn run(args: &SolveArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (config, position) = args.start.load()?;
    writeln!(out, "{}", describe(&config, &position))?;
    if let Some(found) = args.classic.find(&config, &position) {
        return from_database(&found, args.value_only, out);
    }
    if args.value_only {
        let clock = Instant::now();
        let (outcome, best, nodes) =
            solve_value(&config, &position, None).map_err(|e| in_words(&config, e))?;
        let secs = clock.elapsed().as_secs_f64();
        writeln!(out, "nodes {nodes}")
            .and_then(|()| writeln!(out, "time {secs:.3} s"))
            .and_then(|()| writeln!(out, "value {} best {best}", outcome.name()))?;
        return Ok(());
    }
    let mut tt = Table::with_megabytes(args.table_mb);
    let clock = Instant::now();
    let s = solve(&config, &position, &mut tt, None).map_err(|e| in_words(&config, e))?;
    let secs = clock.elapsed().as_secs_f64();
    writeln!(out, "nodes {}", s.nodes)
        .and_then(|()| {
            writeln!(
                out,
                "time {secs:.3} s ({:.0} nodes/s)",
                s.nodes as f64 / secs.max(1e-9)
            )
        })
        .and_then(|()| {
            writeln!(
                out,
                "value {} best {} plies {}",
                s.outcome.name(),
                s.best,
                s.plies
            )
        })?;
    Ok(())
}

/// The database's answer, in the same last line as search's.
fn from_database(found: &Found, value_only: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let clock = Instant::now();
    let (Some(solved), Some(best)) = (
        found.db.lookup(&found.shape),
        found.db.best_move(&found.shape),
    ) else {
        anyhow::bail!("the database holds no selection for {}", found.shape);
    };
    let secs = clock.elapsed().as_secs_f64();
    let value = name(solved.value);
    let best = Cell::new(best.row, best.col);
    writeln!(out, "time {secs:.6} s")?;
    writeln!(out, "{}", found.source)?;
    if value_only {
        writeln!(out, "value {value} best {best}")?;
    } else {
        writeln!(out, "value {value} best {best} plies {}", solved.plies)?;
    }
    Ok(())
}

/// The error of `solve` or `analyze` in words: under the rule options a search stopped without
/// a stop flag ran out of the positions the options solver holds.
pub fn in_words(config: &Config, error: SolveError) -> anyhow::Error {
    match error {
        SolveError::Stopped if !standard(config) => anyhow::anyhow!(
            "this position is too large to solve exactly under its rule options: the options solver holds at most {MAX_POSITIONS} positions (classic Chomp with square bites banned fits 12×12, not 13×13); try a smaller board, or analyze with a budget"
        ),
        e => e.into(),
    }
}
