//! The search engine: budgets, the two-player and multi-player searches, and [`SearchPlayer`],
//! the [`Player`](crate::Player) built on them.

mod budget;
mod player;

pub use budget::Budget;
pub use player::SearchPlayer;
