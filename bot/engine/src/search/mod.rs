//! The search engine: budgets, the two-sided (two-player and paranoid) and max^n searches,
//! Monte Carlo tree search with max^n backups and proven bounds, Best-Reply Search+, exact
//! solving and analysis, and [`SearchPlayer`], the [`Player`](crate::Player) built on them (the
//! other search bots are built from their [`BotSpec`](crate::BotSpec)).

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
mod mcts;
mod mcts_player;
mod options;
mod parity;
mod player;
mod plies;
mod regions;
mod root;
mod score;
mod solve;
mod trivial;
mod tt;
mod two;

pub(crate) use brs_player::BrsPlayer;
pub use budget::Budget;
pub use engine::{Engine, MultiMode, Report};
pub(crate) use level_player::LevelPlayer;
pub use limits::Limits;
pub(crate) use mcts_player::MctsPlayer;
pub(crate) use options::{Kind, OptionsPlayer};
pub use options::{MAX_POSITIONS, standard};
pub use player::SearchPlayer;
pub use regions::RegionSolver;
pub use score::Outcome;
pub use solve::{MoveValue, Solution, SolveError, analyze, solve, solve_value};
pub use tt::Table;
