//! The starting position of `solve` and `analyze`: the board flags, a game record's
//! configuration after its moves, or a classic position given by its row lengths.

use anyhow::{Context, anyhow, bail};
use jchomp_engine::classic::Shape;
use jchomp_protocol::board_args::BoardArgs;
use jchomp_protocol::record::Record;
use jchomp_rules::{Bits, CLASSIC_MIN_CELLS, Config, Options, Position, Setup, Variant};
use std::path::PathBuf;

/// Board flags plus an optional record or classic position to start from.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Start after the moves of this game record (JSON); its configuration replaces the board
    /// flags.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Start from this classic position, given by its row lengths, top row first (5,5,3: five
    /// cells in the top row, five below, then three). The board is then the smallest that holds
    /// it (1x2 for the poison alone: a classic bar has at least 2 cells); the variant is
    /// classic and the poison 0,0.
    #[arg(
        long,
        value_name = "LENGTHS",
        conflicts_with_all = ["record", "size", "variant", "eat", "poison"]
    )]
    rows: Option<Shape>,
}

impl StartArgs {
    /// The configuration and the position to start from.
    pub fn load(&self) -> anyhow::Result<(Config, Position)> {
        if let Some(shape) = &self.rows {
            return classic_position(shape, self.board.players);
        }
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

/// The classic game of `players` seats on the smallest board that holds `shape` (two cells
/// wide for the poison alone, the smallest bar), in the position `shape`, seat 0 to move.
fn classic_position(shape: &Shape, players: i64) -> anyhow::Result<(Config, Position)> {
    if shape.height() == 0 {
        bail!("--rows names no cell: a position holds at least the poison, such as --rows 1");
    }
    let rows = shape.height() as i64;
    let least_cols = u64::from(CLASSIC_MIN_CELLS).div_ceil(rows as u64) as i64;
    let config = Config::new(&Setup {
        rows,
        cols: (shape.width() as i64).max(least_cols),
        players,
        variant: Variant::Classic,
        eat: None,
        poison: vec![[0, 0]],
        options: Options::default(),
    })?;
    let mut uneaten = Bits::EMPTY;
    for (r, &len) in shape.rows().iter().enumerate() {
        uneaten |= Bits::rect(r as u8, 0, 1, len);
    }
    Ok((config, Position::from_uneaten(&config, uneaten, 0)))
}

/// One line describing the configuration (its rule options when set) and who is to move.
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
    let mut options = String::new();
    if !config.play().is_misere() {
        options += &format!(" play {}", config.play());
    }
    if config.no_square_bites() {
        options += " no_square_bites";
    }
    format!(
        "board {}x{} {rule} poison {} players {}{options}, {eaten} cells eaten, {to_move}",
        config.rows(),
        config.cols(),
        poison.join(" "),
        config.players()
    )
}
