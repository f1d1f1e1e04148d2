//! The JChomp engine protocol (JEP, docs/ENGINE.md): the lines a runner sends an engine
//! ([`Command`]) and those an engine sends back ([`Reply`]), each parsed from a line and printed
//! as one. Nothing here starts a process or keeps a game; the runner and the engine do.

mod command;
mod line;
mod reply;

pub use command::{Command, Go};
pub use line::{LineError, MAX_LINE};
pub use reply::{Info, OptionDecl, OptionKind, Reply, Rule, Score};

/// The protocol's name, the first word of the runner's first line.
pub const PROTOCOL: &str = "jep";
/// The version this build speaks.
pub const VERSION: u32 = 1;
