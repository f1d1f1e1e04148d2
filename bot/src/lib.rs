//! The tools behind `jchomp-bot`: the bot client that plays through a server ([`client`], the
//! [`bridge`] that seats an external engine there, and [`entrant`], which plays a tournament the
//! server runs), tournaments between bots and engines
//! ([`tournament`]), the engine protocol's lines ([`jep`]), its reference engine
//! ([`jep_engine`]) and its runner's side ([`jep_runner`]), and the subcommands' code. The bots
//! themselves are the crate `jchomp-engine`.

pub mod bridge;
pub mod client;
pub mod entrant;
pub mod jep;
pub mod jep_engine;
pub mod jep_runner;
pub mod tournament;
