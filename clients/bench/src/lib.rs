//! The `jchomp-bench` load generator: many WebSocket connections in rooms of scripted players
//! making valid moves against a JChomp server (or the same load against a bare echo server as a
//! baseline), measured for throughput, latency, errors and server memory; or, in its login
//! mode, logins a second and what a flood of wrong passwords does to games in play; or, in its
//! pairing mode, the time from a quick-pairing seek to a seat against a plain room join; or, in
//! its arena mode, a server-run arena of built-in bots: games a second and how soon a result
//! reaches the standings.
//!
//! [`run::run_load`] is one run and is what tests call against an in-process server;
//! [`cli::main`] is the command line around it.

pub mod arena;
pub mod cli;
pub mod cluster;
mod codec;
pub mod durability;
pub mod echo;
pub mod fault;
mod fault_report;
mod ledger;
pub mod login;
mod login_report;
pub mod login_run;
pub mod pairing;
mod pairing_report;
pub mod pairing_run;
pub mod plan;
mod process;
mod report;
pub mod run;
pub mod socket;
pub mod stats;
mod survive;
mod table;
