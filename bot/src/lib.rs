//! JChomp bots: the [`Player`] interface, bot specs ([`BotSpec`]), the search engine, and the
//! tools behind `jchomp-bot`.

pub mod arena;
pub mod board_args;
pub mod client;
pub mod player;
pub mod rng;
pub mod scoring;
pub mod search;
pub mod spec;
pub mod tournament;

pub use player::{GreedyPlayer, Player, RandomPlayer};
pub use rng::Rng;
pub use search::{Budget, SearchPlayer};
pub use spec::{BotSpec, SpecError};
