//! The starting position of `solve` and `analyze`: the board flags, or a game record's
//! configuration after its moves.

use anyhow::{Context, anyhow};
use jchomp_protocol::board_args::BoardArgs;
use jchomp_protocol::record::Record;
use jchomp_rules::{Config, Position};
use std::path::PathBuf;

/// Board flags plus an optional record to start from.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Start after the moves of this game record (JSON); its configuration replaces the board
    /// flags.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

impl StartArgs {
    /// The configuration and the position to start from.
    pub fn load(&self) -> anyhow::Result<(Config, Position)> {
        match &self.record {
            None => {
                let config = self.board.config()?;
                Ok((config, Position::start(&config)))
            }
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                // The replay error's message holds its causes: it is printed whole.
                let record: Record = serde_json::from_str(&text)
                    .map_err(|e| anyhow!("{} is not a game record: {e}", path.display()))?;
                let game = record
                    .replay()
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
                Ok((*game.config(), *game.position()))
            }
        }
    }
}

/// One line describing the configuration and who is to move.
pub fn describe(config: &Config, position: &Position) -> String {
    let rule = match config.eat() {
        Some((er, ec)) => format!("eat {er}x{ec}"),
        None => format!("variant {}", config.variant()),
    };
    let poison: Vec<String> = config.poison().iter().map(|c| c.to_string()).collect();
    let eaten = position.eaten(config).count();
    let to_move = match position.to_move() {
        Some(s) => format!("seat {s} to move"),
        None => "game over".to_string(),
    };
    format!(
        "board {}x{} {rule} poison {} players {}, {eaten} cells eaten, {to_move}",
        config.rows(),
        config.cols(),
        poison.join(" "),
        config.players()
    )
}
