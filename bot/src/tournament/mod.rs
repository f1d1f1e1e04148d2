//! Tournaments between bots (`jchomp-bot tournament`): round robin or gauntlet, every seat
//! rotation of the same bots per start configuration, standings with Elo, SPRT early stop,
//! resumable output, and play in-process or through a running server.
//!
//! The pieces: [`schedule`] (who plays which game index), [`starts`] (start configurations),
//! [`play`] (one game in-process, with failures and overruns), [`runner`] (the worker pool that
//! hands finished games on in index order), [`standings`], [`elo`], [`sprt`], [`output`]
//! (`tournament.json`, `games.jsonl`, `results.json`, resume), [`progress`], [`report`] (the
//! standings table) and [`tournament`](run) itself.

pub mod elo;
pub mod output;
pub mod play;
pub mod progress;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod server;
pub mod settings;
pub mod sprt;
pub mod standings;
pub mod starts;
mod tourney;
mod watchdog;
pub(crate) mod ws;

pub use settings::{Length, Settings};
pub use tourney::{Finished, Options, Outcome, Stop, resume, run};
