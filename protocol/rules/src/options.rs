//! The rule options of a configuration beside its variant: misère or normal play, and the ban
//! on perfect-square bites.

use std::fmt;

/// Who wins when a poison cell (the specially marked counter) is eaten.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Play {
    /// Misère (JChomp's rule 4, Gale's Chomp): the seat that eats a poison cell loses.
    #[default]
    Misere,
    /// Normal play (the seeds' variation): the marked cells are no longer poisonous and the
    /// seat that eats one of them wins; every other seat loses. The first seat can eat a
    /// marked cell at once in every variant (unless square bites are banned and each bite
    /// reaching it is a square), so such games last one move: allowed, as the seeds state the
    /// rule, and refusing them would refuse nearly every normal-play configuration.
    Normal,
}

impl Play {
    /// Both conventions, the default first.
    pub const ALL: [Play; 2] = [Play::Misere, Play::Normal];

    /// The name in the JSON configuration, the notation and the flags.
    pub const fn name(self) -> &'static str {
        match self {
            Play::Misere => "misere",
            Play::Normal => "normal",
        }
    }

    /// The convention with this name (case does not matter).
    pub fn from_name(name: &str) -> Option<Play> {
        Play::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// Whether this is the default, misère play (which configurations do not name).
    pub const fn is_misere(&self) -> bool {
        matches!(self, Play::Misere)
    }
}

impl fmt::Display for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The options of a game beside its variant; the default is the game as it was before them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Misère (default) or normal play.
    pub play: Play,
    /// When set, no selection may eat cells forming a k×k square (1, 4, 9 … cells); a seat
    /// with no other selection left ties the game (JChomp's rule 5).
    pub no_square_bites: bool,
}

impl Options {
    /// Whether these are the default options (which configurations do not name).
    pub fn is_default(&self) -> bool {
        *self == Options::default()
    }
}
