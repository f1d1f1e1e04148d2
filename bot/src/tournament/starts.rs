//! Start configurations: drawn from the seed within the game's ranges (any of size, eat size and
//! poison cells may be fixed by flags, and every draw is of one variant under one set of rule
//! options), read from an openings file, one configuration per line, as the JSON configuration
//! object of game records, or the configurations of a tournament a server ran.

use super::rules::{OptionFlags, Rules};
use super::server_run::{ServerRun, ServerRunError};
use jchomp_engine::draw::{Fixed, draw};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Config, ConfigError, Options, Setup, Variant};
use serde::{Deserialize, Serialize};

/// Why start configurations are refused.
#[derive(Debug, thiserror::Error)]
pub enum StartsError {
    /// The fixed fields make an invalid configuration.
    #[error("{0}")]
    Config(ConfigError),
    /// An opening is an invalid configuration; `number` counts from 1.
    #[error("opening {number}: {reason}")]
    Opening {
        /// Which opening.
        number: usize,
        /// Why the rules refuse it.
        reason: ConfigError,
    },
    /// A line of the openings file is refused; `line` counts from 1.
    #[error("openings line {line}: {reason}")]
    OpeningsLine {
        /// Which line.
        line: usize,
        /// What is wrong with it.
        reason: OpeningError,
    },
    /// The openings file holds no configuration.
    #[error("the openings file holds no configuration")]
    NoOpenings,
    /// A tournament read from a server does not hang together.
    #[error("{0}")]
    ServerRun(ServerRunError),
}

/// What is wrong with one line of an openings file.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// It is not JSON, or not a configuration object.
    #[error("{0}")]
    Json(serde_json::Error),
    /// It is JSON but not an object.
    #[error("expected a JSON object")]
    NotObject,
    /// It names another number of players than the tournament's.
    #[error("players is {given}, but the tournament plays {players}-player games")]
    Players {
        /// The `players` field as given.
        given: serde_json::Value,
        /// The tournament's players per game.
        players: u8,
    },
    /// The rules refuse the configuration.
    #[error("{0}")]
    Config(ConfigError),
}

/// Where the start configuration of each round comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Starts {
    /// Drawn from the seed, round by round, except for the fields fixed here by flags.
    Drawn {
        /// The variant and rule options of every game (JChomp under the default options in
        /// settings written before them).
        #[serde(flatten)]
        rules: Rules,
        /// Board size `[rows, cols]` (classic bars as small as the rules allow, such as
        /// `[3, 5]`), or drawn (4–15 each, in every variant).
        size: Option<[i64; 2]>,
        /// Eat size `[rows, cols]`, or drawn (1–3 each; not square under `no_square_bites`);
        /// JChomp only.
        eat: Option<[i64; 2]>,
        /// Poison cells, or (if empty) 1–4 cells drawn anywhere on the board (one in edge
        /// breaks).
        poison: Vec<[i64; 2]>,
    },
    /// Read from a file; round `r` uses line `r` modulo their number.
    Openings {
        /// The configurations, in file order.
        configs: Vec<ConfigJson>,
    },
    /// A tournament a server ran (exported with `--from-server`): its configurations (round
    /// `r` the configuration `r` modulo their number), and its games listed as it played them,
    /// each naming its configuration; none is played here.
    Server(Box<ServerRun>),
}

impl Default for Starts {
    /// Everything drawn.
    fn default() -> Starts {
        Starts::Drawn {
            rules: Rules::default(),
            size: None,
            eat: None,
            poison: Vec::new(),
        }
    }
}

impl Starts {
    /// The unvalidated setup of round `round`.
    pub(crate) fn setup(&self, players: u8, seed: u64, round: u64) -> Setup {
        match self {
            Starts::Openings { configs } => {
                let i = (round % configs.len().max(1) as u64) as usize;
                match configs.get(i) {
                    Some(c) => Setup {
                        players: i64::from(players),
                        ..c.setup()
                    },
                    None => Setup {
                        rows: 0,
                        cols: 0,
                        players: i64::from(players),
                        variant: Variant::JChomp,
                        eat: Some([0, 0]),
                        poison: vec![],
                        options: Options::default(),
                    },
                }
            }
            Starts::Server(run) => {
                let configs = run.configs();
                let i = (round % configs.len().max(1) as u64) as usize;
                configs.get(i).unwrap_or(&run.view.spec.config).setup()
            }
            Starts::Drawn {
                rules,
                size,
                eat,
                poison,
            } => {
                let fixed = Fixed {
                    variant: rules.variant,
                    options: rules.options,
                    size: *size,
                    eat: *eat,
                    poison,
                };
                draw(&fixed, players, seed, round)
            }
        }
    }

    /// The validated configuration of round `round`.
    pub fn config(&self, players: u8, seed: u64, round: u64) -> Result<Config, ConfigError> {
        Config::new(&self.setup(players, seed, round))
    }

    /// The variants the games are played in, each with the rule options it is played under.
    pub fn variants(&self) -> Vec<(Variant, Options)> {
        let of_json = |c: &ConfigJson| (c.variant, c.options());
        let mut variants: Vec<(Variant, Options)> = match self {
            Starts::Drawn { rules, .. } => vec![(rules.variant, rules.options)],
            Starts::Openings { configs } => configs.iter().map(of_json).collect(),
            Starts::Server(run) => run.configs().iter().map(of_json).collect(),
        };
        variants.sort_by_key(|(v, o)| (v.name(), o.play.name(), o.no_square_bites));
        variants.dedup();
        variants
    }

    /// The tournament a server ran, if these are its games.
    pub fn server_run(&self) -> Option<&ServerRun> {
        match self {
            Starts::Server(run) => Some(run),
            _ => None,
        }
    }

    /// Checks that every configuration these starts can produce is valid.
    pub fn validate(&self, players: u8) -> Result<(), StartsError> {
        match self {
            Starts::Openings { configs } => {
                if configs.is_empty() {
                    return Err(StartsError::NoOpenings);
                }
                for (i, _) in configs.iter().enumerate() {
                    self.config(players, 0, i as u64)
                        .map_err(|reason| StartsError::Opening {
                            number: i + 1,
                            reason,
                        })?;
                }
                Ok(())
            }
            Starts::Server(run) => run.validate(players).map_err(StartsError::ServerRun),
            // Fixed fields are checked by one draw; drawn fields are always in range.
            Starts::Drawn { .. } => self
                .config(players, 0, 0)
                .map(|_| ())
                .map_err(StartsError::Config),
        }
    }
}

/// Reads an openings file: one JSON configuration object per line, as in game records
/// (`{"rows":6,"cols":7,"eat":[1,2],"poison":[[0,0]]}`). `players` may be left out; if given it
/// must equal the tournament's. Blank lines and lines starting with `#` are skipped. Each line is
/// taken under the options `flags` give, and refused if the rules refuse it under them.
pub fn parse_openings(
    text: &str,
    players: u8,
    flags: OptionFlags,
) -> Result<Vec<ConfigJson>, StartsError> {
    let mut configs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: OpeningError| StartsError::OpeningsLine {
            line: i + 1,
            reason,
        };
        let mut value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(OpeningError::Json(e)))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| bad(OpeningError::NotObject))?;
        let given = object
            .entry("players")
            .or_insert_with(|| serde_json::Value::from(players));
        if given.as_i64() != Some(i64::from(players)) {
            return Err(bad(OpeningError::Players {
                given: given.clone(),
                players,
            }));
        }
        let config: ConfigJson =
            serde_json::from_value(value).map_err(|e| bad(OpeningError::Json(e)))?;
        let config = flags.apply(config);
        config
            .validate()
            .map_err(|e| bad(OpeningError::Config(e)))?;
        configs.push(ConfigJson {
            move_time_ms: None,
            ..config
        });
    }
    if configs.is_empty() {
        return Err(StartsError::NoOpenings);
    }
    Ok(configs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::Play;

    fn classic_rules() -> Rules {
        Rules {
            variant: Variant::Classic,
            options: Options::default(),
        }
    }

    #[test]
    fn drawn_configurations_are_valid_varied_and_repeatable() {
        let mut sizes = std::collections::HashSet::new();
        let mut poison_counts = std::collections::HashSet::new();
        for round in 0..300 {
            let c = Starts::default().config(3, 42, round).unwrap();
            assert_eq!(c, Starts::default().config(3, 42, round).unwrap());
            assert_eq!(c.players(), 3);
            sizes.insert((c.rows(), c.cols(), c.eat()));
            poison_counts.insert(c.poison().len());
        }
        assert!(sizes.len() > 100);
        assert_eq!(poison_counts.len(), 4);
        assert_ne!(
            Starts::default().config(2, 1, 0).unwrap(),
            Starts::default().config(2, 2, 0).unwrap()
        );
    }

    #[test]
    fn classic_starts_have_no_eat_size_and_jchomp_draws_are_unchanged() {
        let classic = Starts::Drawn {
            rules: classic_rules(),
            size: None,
            eat: None,
            poison: Vec::new(),
        };
        for round in 0..100 {
            let c = classic.config(2, 5, round).unwrap();
            assert_eq!(c.variant(), Variant::Classic);
            assert_eq!(c.eat(), None);
        }
        // Settings written before classic games existed read as JChomp draws.
        let old: Starts =
            serde_json::from_str(r#"{"kind":"drawn","size":null,"eat":null,"poison":[]}"#).unwrap();
        assert_eq!(old, Starts::default());
        assert_eq!(
            serde_json::to_string(&Starts::default()).unwrap(),
            r#"{"kind":"drawn","size":null,"eat":null,"poison":[]}"#
        );
        let fixed_eat = Starts::Drawn {
            rules: classic_rules(),
            size: None,
            eat: Some([1, 2]),
            poison: Vec::new(),
        };
        assert!(fixed_eat.config(2, 5, 0).is_err());
        // Settings written before edge breaks and the options said classic games so.
        let old: Starts = serde_json::from_str(
            r#"{"kind":"drawn","classic":true,"size":null,"eat":null,"poison":[]}"#,
        )
        .unwrap();
        assert_eq!(old, classic);
        assert_eq!(
            serde_json::to_string(&classic).unwrap(),
            r#"{"kind":"drawn","variant":"classic","size":null,"eat":null,"poison":[]}"#
        );
    }

    #[test]
    fn drawn_starts_carry_the_variant_and_options_and_are_valid_under_them() {
        let under = |variant, play, no_square_bites| Starts::Drawn {
            rules: Rules {
                variant,
                options: Options {
                    play,
                    no_square_bites,
                },
            },
            size: None,
            eat: None,
            poison: Vec::new(),
        };
        let cases = [
            under(Variant::JChomp, Play::Normal, true),
            under(Variant::Breaks, Play::Misere, false),
            under(Variant::Breaks, Play::Normal, true),
            under(Variant::Classic, Play::Misere, true),
        ];
        for starts in &cases {
            starts.validate(2).unwrap();
            let Starts::Drawn { rules, .. } = starts else {
                unreachable!()
            };
            for round in 0..200 {
                let c = starts.config(3, 9, round).unwrap();
                assert_eq!((c.variant(), c.options()), (rules.variant, rules.options));
                if let Some((r, k)) = c.eat() {
                    assert!(!(rules.options.no_square_bites && r == k), "{c}");
                }
            }
            let text = serde_json::to_string(starts).unwrap();
            assert_eq!(&serde_json::from_str::<Starts>(&text).unwrap(), starts);
        }
        assert_eq!(
            serde_json::to_string(&cases[2]).unwrap(),
            r#"{"kind":"drawn","variant":"breaks","play":"normal","no_square_bites":true,"size":null,"eat":null,"poison":[]}"#
        );
        // Fixed fields the options refuse are refused in the rules' words.
        let square = Starts::Drawn {
            rules: Rules {
                variant: Variant::JChomp,
                options: Options {
                    play: Play::Misere,
                    no_square_bites: true,
                },
            },
            size: None,
            eat: Some([2, 2]),
            poison: Vec::new(),
        };
        assert!(
            square
                .validate(2)
                .unwrap_err()
                .to_string()
                .contains("square")
        );
        assert!(
            serde_json::from_str::<Starts>(
                r#"{"kind":"drawn","variant":"go","size":null,"eat":null,"poison":[]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn option_flags_are_laid_over_every_opening() {
        let text = "{\"rows\":5,\"cols\":6,\"eat\":[1,2],\"poison\":[[0,0]]}\n\
                    {\"rows\":4,\"cols\":4,\"variant\":\"breaks\",\"poison\":[[1,1]],\"play\":\"normal\"}\n";
        let plain = parse_openings(text, 2, OptionFlags::default()).unwrap();
        assert_eq!(
            plain.iter().map(|c| c.play).collect::<Vec<_>>(),
            [Play::Misere, Play::Normal]
        );
        let flags = OptionFlags {
            play: Some(Play::Normal),
            no_square_bites: true,
        };
        let starts = Starts::Openings {
            configs: parse_openings(text, 2, flags).unwrap(),
        };
        for round in 0..2 {
            let options = starts.config(2, 0, round).unwrap().options();
            assert_eq!(
                (options.play, options.no_square_bites),
                (Play::Normal, true)
            );
        }
        let both = Options {
            play: Play::Normal,
            no_square_bites: true,
        };
        assert_eq!(
            starts.variants(),
            [(Variant::Breaks, both), (Variant::JChomp, both)]
        );
        // An opening the options make invalid is refused with its line.
        let square = "{\"rows\":5,\"cols\":6,\"eat\":[1,1],\"poison\":[[0,0]]}";
        assert!(parse_openings(square, 2, OptionFlags::default()).is_ok());
        let refusal = parse_openings(square, 2, flags).unwrap_err().to_string();
        assert!(
            refusal.starts_with("openings line 1:") && refusal.contains("square"),
            "{refusal}"
        );
    }

    #[test]
    fn fixed_fields_stay_fixed() {
        let starts = Starts::Drawn {
            rules: Rules::default(),
            size: None,
            eat: Some([1, 2]),
            poison: vec![[9, 12]],
        };
        for round in 0..50 {
            let c = starts.config(2, 7, round).unwrap();
            assert_eq!(c.eat(), Some((1, 2)));
            assert!(c.rows() >= 10 && c.cols() >= 13);
            assert_eq!(c.poison().len(), 1);
        }
        let bad = Starts::Drawn {
            rules: Rules::default(),
            size: Some([5, 5]),
            eat: None,
            poison: vec![[5, 0]],
        };
        assert!(
            bad.validate(2)
                .unwrap_err()
                .to_string()
                .contains("poison[0]")
        );
    }

    #[test]
    fn openings_parse_cycle_and_refuse_bad_lines() {
        let text = "# two openings\n{\"rows\":5,\"cols\":6,\"eat\":[1,2],\"poison\":[[0,0]]}\n\n\
                    {\"rows\":4,\"cols\":4,\"players\":2,\"eat\":[1,1],\"poison\":[[3,3]]}\n";
        let configs = parse_openings(text, 2, OptionFlags::default()).unwrap();
        assert_eq!(configs.len(), 2);
        let starts = Starts::Openings { configs };
        assert_eq!(starts.config(2, 0, 0).unwrap().rows(), 5);
        assert_eq!(starts.config(2, 0, 1).unwrap().rows(), 4);
        assert_eq!(starts.config(2, 0, 2).unwrap().rows(), 5);
        assert!(
            parse_openings("{\"rows\":5}", 2, OptionFlags::default())
                .unwrap_err()
                .to_string()
                .starts_with("openings line 1:")
        );
        assert!(
            parse_openings(
                "\n{\"rows\":3,\"cols\":6,\"eat\":[1,2],\"poison\":[[0,0]]}",
                2,
                OptionFlags::default()
            )
            .unwrap_err()
            .to_string()
            .contains("line 2: rows must be 4–15, got 3")
        );
        assert!(
            parse_openings(
                "{\"rows\":5,\"cols\":6,\"players\":3,\"eat\":[1,2],\"poison\":[[0,0]]}",
                2,
                OptionFlags::default()
            )
            .unwrap_err()
            .to_string()
            .contains("2-player")
        );
        assert!(parse_openings("# nothing\n", 2, OptionFlags::default()).is_err());
    }

    #[test]
    fn small_classic_bars_are_openings_and_fixed_sizes() {
        let text = "{\"rows\":3,\"cols\":5,\"variant\":\"classic\",\"poison\":[[0,0]]}\n\
                    {\"rows\":1,\"cols\":2,\"variant\":\"classic\",\"poison\":[[0,0]]}\n";
        let starts = Starts::Openings {
            configs: parse_openings(text, 2, OptionFlags::default()).unwrap(),
        };
        assert!(starts.validate(2).is_ok());
        let first = starts.config(2, 0, 0).unwrap();
        assert_eq!(first.to_string(), "3x5 variant classic poison 0,0");
        assert_eq!(starts.config(2, 0, 1).unwrap().board().count(), 2);
        let lone = "{\"rows\":1,\"cols\":1,\"variant\":\"classic\",\"poison\":[[0,0]]}";
        assert!(
            parse_openings(lone, 2, OptionFlags::default())
                .unwrap_err()
                .to_string()
                .contains("line 1: classic Chomp needs at least 2 cells, got 1×1")
        );
        let fixed = Starts::Drawn {
            rules: classic_rules(),
            size: Some([3, 5]),
            eat: None,
            poison: vec![],
        };
        assert!(fixed.validate(2).is_ok());
        for round in 0..20 {
            let config = fixed.config(2, 7, round).unwrap();
            assert_eq!((config.rows(), config.cols()), (3, 5));
        }
    }
}
