//! `jchomp-bot analyze`: every valid selection with its exact value and plies to the end, from
//! the classic database for the standard classic game when it holds the position, by search
//! otherwise.

use super::classic_flag::{ClassicDbFlag, Found, name};
use super::start::{StartArgs, describe};
use anyhow::anyhow;
use jchomp_engine::BotSpec;
use jchomp_engine::search::{Budget, Outcome, Table, analyze};
use std::io::Write;
use std::time::Instant;

/// Flags of `analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    start: StartArgs,
    #[command(flatten)]
    classic: ClassicDbFlag,
    /// Budget per selection, as in a search bot spec: depth=N, nodes=N or time=250ms. Without
    /// it every selection is solved exactly.
    #[arg(long, value_parser = parse_budget)]
    budget: Option<Budget>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 512)]
    table_mb: usize,
}

fn parse_budget(s: &str) -> anyhow::Result<Budget> {
    match BotSpec::parse(&format!("search:{s}")) {
        Ok(BotSpec::Search(b)) => Ok(b),
        Ok(_) => Err(anyhow!("not a budget: {s:?}")),
        Err(e) => Err(anyhow!(e.reason)),
    }
}

/// Prints one line per valid selection (`R,C win plies N`, `R,C loss plies N`, `R,C tie` or
/// `R,C unsolved estimate S depth D`), then nodes and time. The standard classic game is
/// answered by the classic database, which says before them which one.
pub fn run(args: &AnalyzeArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (config, position) = args.start.load()?;
    let mut lines = vec![describe(&config, &position)];
    if let Some(found) = args.classic.find(&config, &position) {
        lines.extend(from_database(&found)?);
        return print(&lines, out);
    }
    let mut tt = Table::with_megabytes(args.table_mb);
    let clock = Instant::now();
    let (values, nodes) = analyze(&config, &position, &mut tt, args.budget, None)
        .map_err(|e| super::solve::in_words(&config, e))?;
    for v in values {
        lines.push(match v.value {
            Some((Outcome::Tie, _)) => format!("{} tie", v.cell),
            Some((o, Some(p))) => format!("{} {} plies {p}", v.cell, o.name()),
            Some((o, None)) => format!("{} {}", v.cell, o.name()),
            None => format!(
                "{} unsolved estimate {} depth {}",
                v.cell, v.estimate, v.depth
            ),
        });
    }
    lines.push(format!("nodes {nodes}"));
    lines.push(format!("time {:.3} s", clock.elapsed().as_secs_f64()));
    print(&lines, out)
}

/// The database's lines: every selection, where the answer comes from, no nodes, and the time
/// the answer took once the file was read.
fn from_database(found: &Found) -> anyhow::Result<Vec<String>> {
    let clock = Instant::now();
    let moves = found
        .db
        .analyze(&found.shape)
        .ok_or_else(|| anyhow!("the database does not hold {}", found.shape))?;
    let secs = clock.elapsed().as_secs_f64();
    let mut lines: Vec<String> = moves
        .iter()
        .map(|m| {
            format!(
                "{},{} {} plies {}",
                m.row,
                m.col,
                name(m.solved.value),
                m.solved.plies
            )
        })
        .collect();
    lines.push(found.source.clone());
    lines.push("nodes 0".into());
    lines.push(format!("time {secs:.6} s"));
    Ok(lines)
}

fn print(lines: &[String], out: &mut impl Write) -> anyhow::Result<()> {
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}
