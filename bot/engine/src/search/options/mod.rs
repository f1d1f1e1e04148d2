//! The rule options in the engine: [`standard`] says whether the fast paths' assumptions hold
//! (misère JChomp or classic Chomp, square bites allowed where they can happen); every other
//! configuration is valued by [`exact`] (a memoized search over the rules' own selections and
//! results), edge breaks by [`nim`] where that is exact, and played by [`OptionsPlayer`].

mod exact;
mod maxn;
mod nim;
mod player;
mod solve;

pub use exact::MAX_POSITIONS;
pub(crate) use player::{Kind, OptionsPlayer};
pub(crate) use solve::{analyze, solve, solve_value};

use jchomp_rules::{Config, Play, Variant};

/// Whether the engine's standard solvers, searches and database apply to `config`: misère
/// play, JChomp or classic Chomp, and no ban on square bites where a bite can be square (a
/// JChomp eat size is never square under the ban, so the ban changes nothing there).
pub fn standard(config: &Config) -> bool {
    config.variant() != Variant::Breaks
        && config.play() == Play::Misere
        && (!config.no_square_bites() || config.variant() == Variant::JChomp)
}
