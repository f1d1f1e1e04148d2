//! The tools behind `jchomp-bot`: the bot client that plays through a server ([`client`]),
//! tournaments between bots ([`tournament`]), the engine protocol's lines ([`jep`]) and its
//! reference engine ([`jep_engine`]), and the subcommands' code. The bots themselves are the
//! crate `jchomp-engine`.

pub mod client;
pub mod jep;
pub mod jep_engine;
pub mod jep_runner;
pub mod tournament;
