//! JSON shapes shared by game records and wire messages: configuration, result and move.

use crate::rules::{Config, ConfigError, GameResult, Move, Options, Play, Seat, Setup, Variant};
use serde::{Deserialize, Serialize};

/// A game configuration as JSON:
/// `{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}`, or for
/// classic Chomp `{"rows":6,"cols":7,"players":2,"variant":"classic","poison":[[0,0]]}`; the
/// standard classic bar is `{"rows":3,"cols":5,"players":2,"variant":"classic","poison":[[0,0]]}`.
/// Edge breaks in normal play with square bites banned:
/// `{"rows":3,"cols":5,"players":2,"variant":"breaks","poison":[[1,2]],"play":"normal","no_square_bites":true}`.
///
/// Numbers are kept wide so that an out-of-range value reaches [`Config::new`] and is refused
/// with a message naming the field, the range and the value. A JChomp configuration has no
/// `variant` field, so it reads and writes exactly as before variants existed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigJson {
    /// Board rows: 4–15 in JChomp, 1–15 in classic Chomp (at least 2 cells in all).
    pub rows: i64,
    /// Board columns: 4–15 in JChomp, 1–15 in classic Chomp (at least 2 cells in all).
    pub cols: i64,
    /// Players (2–4).
    pub players: i64,
    /// The game played: `"jchomp"` when absent (and never written for JChomp), `"classic"` or
    /// `"breaks"`.
    #[serde(
        default,
        with = "variant_name",
        skip_serializing_if = "Variant::is_jchomp"
    )]
    pub variant: Variant,
    /// Eat size `[rows, cols]` (each 1–3): required in JChomp, absent in classic Chomp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eat: Option<[i64; 2]>,
    /// Poison cells `[[row, col], …]`.
    pub poison: Vec<[i64; 2]>,
    /// Time each seat has for one move, in milliseconds; absent means no timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_time_ms: Option<u64>,
    /// Whether anyone may ask the server to `analyze` the room's position while the game is
    /// played (a finished game may always be analysed). Absent means `false`, and `false` is
    /// never written, so configurations and records without it read and write as before.
    #[serde(default, skip_serializing_if = "is_false")]
    pub analysis: bool,
    /// Whether the room is rated: only players with accounts may sit, and its result updates
    /// their ratings. Absent means `false`, and `false` is never written.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rated: bool,
    /// `"misere"` (absent: the eater of poison loses) or `"normal"` (the eater of a marked cell
    /// wins); misère is never written.
    #[serde(default, with = "play_name", skip_serializing_if = "Play::is_misere")]
    pub play: Play,
    /// Whether bites of a k×k square of cells are banned; absent means `false`, never written.
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_square_bites: bool,
}

/// Whether a flag is off (left out of the JSON).
fn is_false(flag: &bool) -> bool {
    !*flag
}

impl ConfigJson {
    /// The JSON form of a validated configuration (without analysis).
    pub fn new(config: &Config, move_time_ms: Option<u64>) -> ConfigJson {
        ConfigJson::from_setup(config.to_setup(), move_time_ms)
    }

    /// The JSON form of a setup, valid or not (without analysis).
    pub fn from_setup(setup: Setup, move_time_ms: Option<u64>) -> ConfigJson {
        let Setup {
            rows,
            cols,
            players,
            variant,
            eat,
            poison,
            options,
        } = setup;
        ConfigJson {
            rows,
            cols,
            players,
            variant,
            eat,
            poison,
            move_time_ms,
            analysis: false,
            rated: false,
            play: options.play,
            no_square_bites: options.no_square_bites,
        }
    }

    /// This configuration as the server writes it back once `valid` (what [`validate`] made of
    /// it): the validated board, with this configuration's `move_time_ms`, `analysis` and `rated`.
    ///
    /// [`validate`]: ConfigJson::validate
    pub fn canonical(&self, valid: &Config) -> ConfigJson {
        ConfigJson {
            analysis: self.analysis,
            rated: self.rated,
            ..ConfigJson::new(valid, self.move_time_ms)
        }
    }

    /// The unvalidated setup this JSON describes.
    pub fn setup(&self) -> Setup {
        Setup {
            rows: self.rows,
            cols: self.cols,
            players: self.players,
            variant: self.variant,
            eat: self.eat,
            poison: self.poison.clone(),
            options: self.options(),
        }
    }

    /// Its rule options.
    pub fn options(&self) -> Options {
        Options {
            play: self.play,
            no_square_bites: self.no_square_bites,
        }
    }

    /// Validates the configuration.
    pub fn validate(&self) -> Result<Config, ConfigError> {
        Config::new(&self.setup())
    }
}

/// The variant as its name in JSON (`"jchomp"`, `"classic"`, `"breaks"`); an unknown name is
/// refused.
mod variant_name {
    use crate::rules::Variant;
    use serde::{Deserialize, Deserializer, Serializer, de};

    /// Writes the variant's name.
    pub fn serialize<S: Serializer>(variant: &Variant, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(variant.name())
    }

    /// The names a configuration may give.
    const NAMES: &[&str] = &[
        Variant::JChomp.name(),
        Variant::Classic.name(),
        Variant::Breaks.name(),
    ];

    /// Reads a variant's name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
        let name = String::deserialize(d)?;
        Variant::from_name(&name).ok_or_else(|| de::Error::unknown_variant(&name, NAMES))
    }
}

/// The play convention as its name in JSON (`"misere"`, `"normal"`); an unknown name is refused.
mod play_name {
    use crate::rules::Play;
    use serde::{Deserialize, Deserializer, Serializer, de};

    /// Writes the convention's name.
    pub fn serialize<S: Serializer>(play: &Play, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(play.name())
    }

    /// The names a configuration may give.
    const NAMES: &[&str] = &[Play::Misere.name(), Play::Normal.name()];

    /// Reads a convention's name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Play, D::Error> {
        let name = String::deserialize(d)?;
        Play::from_name(&name).ok_or_else(|| de::Error::unknown_variant(&name, NAMES))
    }
}

/// A game result as JSON: `{"kind":"poisoned","loser":1}`, `{"kind":"won","winner":0}`
/// (normal play), `{"kind":"tie"}`,
/// `{"kind":"timeout","loser":0}` or `{"kind":"abandoned","loser":2}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResultJson {
    /// The loser ate poison.
    Poisoned {
        /// The losing seat.
        loser: Seat,
    },
    /// No valid selection was left.
    Tie,
    /// Normal play: the winner ate a marked cell.
    Won {
        /// The winning seat.
        winner: Seat,
    },
    /// The loser's move timer ran out.
    Timeout {
        /// The losing seat.
        loser: Seat,
    },
    /// The loser left and did not come back in time.
    Abandoned {
        /// The losing seat.
        loser: Seat,
    },
}

impl From<GameResult> for ResultJson {
    fn from(r: GameResult) -> Self {
        match r {
            GameResult::Poisoned { loser } => ResultJson::Poisoned { loser },
            GameResult::Tie => ResultJson::Tie,
            GameResult::Won { winner } => ResultJson::Won { winner },
            GameResult::Timeout { loser } => ResultJson::Timeout { loser },
            GameResult::Abandoned { loser } => ResultJson::Abandoned { loser },
        }
    }
}

impl From<ResultJson> for GameResult {
    fn from(r: ResultJson) -> Self {
        match r {
            ResultJson::Poisoned { loser } => GameResult::Poisoned { loser },
            ResultJson::Tie => GameResult::Tie,
            ResultJson::Won { winner } => GameResult::Won { winner },
            ResultJson::Timeout { loser } => GameResult::Timeout { loser },
            ResultJson::Abandoned { loser } => GameResult::Abandoned { loser },
        }
    }
}

/// One accepted move as JSON: `{"seat":0,"row":2,"col":3}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveJson {
    /// The seat that moved.
    pub seat: i64,
    /// Anchor row.
    pub row: i64,
    /// Anchor column.
    pub col: i64,
}

impl From<Move> for MoveJson {
    fn from(m: Move) -> Self {
        MoveJson {
            seat: m.seat as i64,
            row: m.cell.row as i64,
            col: m.cell.col as i64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    /// A JChomp configuration as every client and stored record has always written it.
    const JCHOMP: &str =
        r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}"#;

    #[test]
    fn a_jchomp_config_is_written_exactly_as_before_variants() {
        let config = ConfigJson::new(&board("6x7 eat 1x2 poison 0,0"), Some(30_000));
        assert_eq!(serde_json::to_string(&config).unwrap(), JCHOMP);
        let read: ConfigJson = serde_json::from_str(JCHOMP).unwrap();
        assert_eq!((read.variant, read.eat), (Variant::JChomp, Some([1, 2])));
        assert_eq!(read, config);
        // Naming JChomp outright reads the same and writes the old form.
        let named: ConfigJson = serde_json::from_str(
            r#"{"rows":6,"cols":7,"players":2,"variant":"jchomp","eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}"#,
        )
        .unwrap();
        assert_eq!(named, config);
        assert_eq!(serde_json::to_string(&named).unwrap(), JCHOMP);
    }

    #[test]
    fn a_classic_config_names_its_variant_and_has_no_eat() {
        let config = ConfigJson::new(&board("6x7 variant classic poison 0,0 players 3"), None);
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(
            text,
            r#"{"rows":6,"cols":7,"players":3,"variant":"classic","poison":[[0,0]]}"#
        );
        let back: ConfigJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back, config);
        assert_eq!(
            back.validate().unwrap(),
            board("6x7 variant classic poison 0,0 players 3")
        );
    }

    #[test]
    fn the_standard_classic_bar_reads_and_its_sizes_depend_on_the_variant() {
        let text = r#"{"rows":3,"cols":5,"players":2,"variant":"classic","poison":[[0,0]]}"#;
        let read: ConfigJson = serde_json::from_str(text).unwrap();
        assert_eq!(
            read.validate().unwrap(),
            board("3x5 variant classic poison 0,0")
        );
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
        let refused = [
            (
                r#"{"rows":1,"cols":1,"players":2,"variant":"classic","poison":[[0,0]]}"#,
                "classic Chomp needs at least 2 cells, got 1×1",
            ),
            (
                r#"{"rows":3,"cols":5,"players":2,"eat":[1,1],"poison":[[0,0]]}"#,
                "rows must be 4–15, got 3",
            ),
        ];
        for (json, message) in refused {
            let config: ConfigJson = serde_json::from_str(json).unwrap();
            assert_eq!(config.validate().unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn eat_must_match_the_variant() {
        let classic_with_eat: ConfigJson = serde_json::from_str(
            r#"{"rows":6,"cols":7,"players":2,"variant":"classic","eat":[1,1],"poison":[[0,0]]}"#,
        )
        .unwrap();
        assert_eq!(
            classic_with_eat.validate().unwrap_err().to_string(),
            "classic Chomp has no eat size; leave out eat"
        );
        let jchomp_without: ConfigJson =
            serde_json::from_str(r#"{"rows":6,"cols":7,"players":2,"poison":[[0,0]]}"#).unwrap();
        assert_eq!(
            jchomp_without.validate().unwrap_err(),
            ConfigError::EatMissing
        );
    }

    #[test]
    fn analysis_is_written_only_when_on() {
        let off = ConfigJson::new(&board("6x7 eat 1x2 poison 0,0"), Some(30_000));
        assert!(!off.analysis);
        let on = ConfigJson {
            analysis: true,
            ..off.clone()
        };
        let text = serde_json::to_string(&on).unwrap();
        assert_eq!(
            text,
            r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000,"analysis":true}"#
        );
        assert_eq!(serde_json::from_str::<ConfigJson>(&text).unwrap(), on);
        assert_eq!(on.canonical(&on.validate().unwrap()), on);
        // Off is the default, said or not, and is never written.
        let said_off: ConfigJson = serde_json::from_str(
            r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000,"analysis":false}"#,
        )
        .unwrap();
        assert_eq!(said_off, off);
        assert_eq!(serde_json::to_string(&said_off).unwrap(), JCHOMP);
        assert!(
            serde_json::from_str::<ConfigJson>(
                r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"analysis":"yes"}"#
            )
            .is_err()
        );
    }

    #[test]
    fn an_unknown_variant_is_refused_in_words() {
        let err = serde_json::from_str::<ConfigJson>(
            r#"{"rows":6,"cols":7,"players":2,"variant":"misere","poison":[[0,0]]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(
                "unknown variant `misere`, expected one of `jchomp`, `classic`, `breaks`"
            ),
            "{err}"
        );
    }

    #[test]
    fn the_options_are_written_only_when_set_and_read_back() {
        let config = ConfigJson::new(
            &board("3x5 variant breaks poison 1,2 play normal no_square_bites"),
            None,
        );
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(
            text,
            r#"{"rows":3,"cols":5,"players":2,"variant":"breaks","poison":[[1,2]],"play":"normal","no_square_bites":true}"#
        );
        let back: ConfigJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back, config);
        assert_eq!(
            back.validate().unwrap(),
            board("3x5 variant breaks poison 1,2 play normal no_square_bites")
        );
        // Misère named outright reads as the default and is not written back.
        let named: ConfigJson = serde_json::from_str(
            r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000,"play":"misere","no_square_bites":false}"#,
        )
        .unwrap();
        assert_eq!(serde_json::to_string(&named).unwrap(), JCHOMP);
        let err = serde_json::from_str::<ConfigJson>(
            r#"{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"play":"sideways"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("unknown variant `sideways`, expected `misere` or `normal`"),
            "{err}"
        );
        let won = serde_json::to_string(&ResultJson::from(GameResult::Won { winner: 2 })).unwrap();
        assert_eq!(won, r#"{"kind":"won","winner":2}"#);
    }
}
