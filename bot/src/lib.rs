//! The tools behind `jchomp-bot`: the bot client that plays through a server ([`client`], and
//! the [`bridge`] that seats an external engine there),
//! tournaments between bots ([`tournament`]), and the subcommands' code. The bots themselves are
//! the crate `jchomp-engine`.

pub mod bridge;
pub mod client;
pub mod jep;
pub mod jep_runner;
pub mod tournament;
