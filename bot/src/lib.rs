//! JChomp bots: the [`Player`] interface, bot specs, the search engine, and the tools behind
//! `jchomp-bot`.

pub mod board_args;
pub mod player;
pub mod rng;

pub use player::{Player, RandomPlayer};
pub use rng::Rng;
