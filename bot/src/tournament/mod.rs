//! Tournaments between bots (`jchomp-bot tournament`): round robin or gauntlet, every seat
//! rotation of the same bots per start configuration, standings with Elo, SPRT early stop,
//! resumable output, play in-process or through a running server, and the export of a
//! tournament a server ran.
//!
//! The pieces: [`settings`] (what a tournament is), [`schedule`] (who plays which game index),
//! [`starts`] (start configurations) and [`rules`] (the variant and options they are played
//! under), `play` (one game in-process, with failures and overruns),
//! `server` (one game in a room of a running server), `runner` (the worker pool that hands
//! finished games on in index order), `standings`, `elo`, `pentanomial` (the pairs of games of a
//! two-bot match and their figures), [`sprt`], `output` (the output directory and resume),
//! `results` (`results.json`), `progress`, [`report`] (the standings table and the pentanomial
//! and SPRT lines), and [`run`] and [`resume`] themselves; [`export`] writes a tournament a
//! server ran as an output directory, its games listed by [`server_run`] instead of scheduled.

mod elo;
mod engines;
pub mod export;
mod output;
pub mod participant;
mod pentanomial;
mod play;
mod progress;
pub mod report;
mod results;
pub mod rules;
mod runner;
pub mod schedule;
mod seats;
mod server;
pub mod server_run;
pub mod settings;
pub mod sprt;
mod standings;
pub mod starts;
pub mod time_control;
mod tourney;
mod watchdog;

pub use settings::{Length, Settings};
pub use tourney::{Finished, Options, Outcome, Stop, TournamentError, resume, run};
