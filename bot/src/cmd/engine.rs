//! `jchomp-bot engine`: a built-in bot as an engine of the JChomp engine protocol
//! (docs/ENGINE.md), speaking over standard input and output.

use super::classic_flag::ClassicDbFlag;
use jchomp_bot::jep_engine;
use jchomp_engine::BotSpec;

/// Flags of `engine`.
#[derive(Debug, clap::Args)]
pub struct EngineArgs {
    /// The bot (random, greedy, search:depth=N, search:nodes=N, search:time=250ms, mcts:nodes=N,
    /// mcts:time=250ms, brs:depth=N, brs:nodes=N, brs:time=250ms, maxn:nodes=N, level:1..5);
    /// the runner may change it with the option `Bot`.
    #[arg(long, default_value = "level:3", value_parser = BotSpec::parse)]
    bot: BotSpec,
    #[command(flatten)]
    classic: ClassicDbFlag,
}

/// Answers the runner on standard input and output until `quit` or the end of the input.
pub fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let library = Some(args.classic.library());
    jep_engine::run(
        args.bot,
        library,
        std::io::stdin().lock(),
        std::io::stdout(),
    )?;
    Ok(())
}
