//! The JChomp bots as a library, on the rules alone: the [`Player`] interface every bot
//! implements, bot specs ([`BotSpec`], the one syntax that names a bot), the search engine
//! ([`search`]), exact solving, the one scoring definition ([`scoring`]), a seeded generator
//! ([`Rng`]) and the start configurations drawn with it ([`draw`]), one bot's turn with its panic caught and its deadline kept ([`think`]) and the one
//! game loop between players, with time limits and failures ([`arena`]).
//!
//! It knows nothing of JSON or sockets, and of runtimes only behind the `tokio` feature (see
//! [`think`]): the server seats these players, the bot client and tournaments drive them, and the
//! terminal client asks them for hints.

pub mod arena;
pub mod classic;
pub mod draw;
pub mod duration;
pub mod player;
pub mod rng;
pub mod scoring;
pub mod search;
pub mod spec;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod think;
pub mod turn;

pub use player::{Player, RandomPlayer};
pub use rng::Rng;
pub use spec::{BotSpec, SpecError};
