//! The rules every start configuration of a tournament is played under, beside its board:
//! [`Rules`], the variant and rule options of drawn starts (as `tournament.json` stores them),
//! and [`OptionFlags`], the options the command line lays over every opening of a file.

use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Options, Play, Variant};
use serde::{Deserialize, Serialize};

/// The game drawn configurations are played in: a variant and the rule options. Stored as a
/// configuration names them (`"variant"`, `"play"`, `"no_square_bites"`, each left out when it
/// is the default); settings written before edge breaks and the options said `"classic": true`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredRules", into = "StoredRules")]
pub struct Rules {
    /// JChomp, classic Chomp or edge breaks.
    pub variant: Variant,
    /// Misère or normal play, and the ban on square bites.
    pub options: Options,
}

/// [`Rules`] as `tournament.json` holds them.
#[derive(Serialize, Deserialize)]
struct StoredRules {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    classic: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    play: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    no_square_bites: bool,
}

impl TryFrom<StoredRules> for Rules {
    type Error = String;

    fn try_from(stored: StoredRules) -> Result<Rules, String> {
        let variant = match (&stored.variant, stored.classic) {
            (None, false) => Variant::JChomp,
            (None, true) => Variant::Classic,
            (Some(name), _) => {
                Variant::from_name(name).ok_or(format!("unknown variant {name:?}"))?
            }
        };
        let play = match &stored.play {
            None => Play::Misere,
            Some(name) => Play::from_name(name).ok_or(format!("unknown play {name:?}"))?,
        };
        Ok(Rules {
            variant,
            options: Options {
                play,
                no_square_bites: stored.no_square_bites,
            },
        })
    }
}

impl From<Rules> for StoredRules {
    fn from(rules: Rules) -> StoredRules {
        StoredRules {
            classic: false,
            variant: (!rules.variant.is_jchomp()).then(|| rules.variant.name().to_string()),
            play: (!rules.options.play.is_misere()).then(|| rules.options.play.name().to_string()),
            no_square_bites: rules.options.no_square_bites,
        }
    }
}

/// Rule options given on the command line, laid over every opening of a file: the play
/// convention when given, and the ban on square bites when set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionFlags {
    /// Misère or normal play for every game, if given.
    pub play: Option<Play>,
    /// Ban square bites in every game.
    pub no_square_bites: bool,
}

impl OptionFlags {
    /// The rule options these flags set (misère play when none is given).
    pub fn options(self) -> Options {
        Options {
            play: self.play.unwrap_or_default(),
            no_square_bites: self.no_square_bites,
        }
    }

    /// `config` under these options.
    pub(crate) fn apply(self, config: ConfigJson) -> ConfigJson {
        ConfigJson {
            play: self.play.unwrap_or(config.play),
            no_square_bites: config.no_square_bites || self.no_square_bites,
            ..config
        }
    }
}
