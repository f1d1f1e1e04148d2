//! `jchomp-bot analyze`: every valid selection with its exact value and plies to the end.

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
/// `R,C unsolved estimate S depth D`), then nodes and time.
pub fn run(args: &AnalyzeArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let (config, position) = args.start.load()?;
    let mut lines = vec![describe(&config, &position)];
    let mut tt = Table::with_megabytes(args.table_mb);
    let clock = Instant::now();
    let (values, nodes) = analyze(&config, &position, &mut tt, args.budget, None)?;
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
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}
