//! The search engine: budgets, the two-sided (two-player and paranoid) and max^n searches,
//! Monte Carlo tree search with max^n backups and proven bounds ([`mcts`], [`MctsPlayer`]),
//! Best-Reply Search+ ([`BrsPlayer`]), exact solving and analysis, and [`SearchPlayer`], the
//! [`Player`](crate::Player) built on them.

mod brs;
mod brs_player;
mod budget;
mod engine;
mod eval;
mod expected;
#[cfg(test)]
mod fixtures;
mod key;
mod level_player;
mod limits;
mod maxn;
pub mod mcts;
pub mod mcts_player;
mod parity;
mod player;
mod plies;
mod regions;
mod root;
pub mod score;
mod solve;
mod trivial;
mod tt;
mod two;

pub use brs_player::BrsPlayer;
pub use budget::Budget;
pub use engine::{DEFAULT_MULTI, Engine, MultiMode, Report};
pub use expected::{ErringModel, Memo};
pub use level_player::LevelPlayer;
pub use limits::Limits;
pub use mcts::{MctsReport, OpponentModel};
pub use mcts_player::MctsPlayer;
pub use player::SearchPlayer;
pub use regions::{Reduced, RegionSolver};
pub use score::Outcome;
pub use solve::{MoveValue, Solution, SolveError, analyze, solve, solve_value};
pub use tt::Table;
