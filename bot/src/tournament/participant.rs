//! [`Participant`]: who plays in a tournament: a built-in bot ([`BotSpec`]) or an external
//! engine ([`EngineSpec`], `--engine name=NAME,cmd=COMMAND[,dir=DIR][,arg=ARG…][,option.K=V…]`).
//! In `tournament.json` a bot is its spec's text, an engine an object.

use crate::jep_runner::{Launch, LaunchError};
use jchomp_engine::spec::BotSpec;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::PathBuf;

/// An external engine as the tournament starts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// Its name in tables and records.
    pub name: String,
    /// The command line (split as a shell splits it), or the program alone when `args` are given.
    pub cmd: String,
    /// The directory it runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Its arguments, one word each (then `cmd` is the program, not split).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Options set after the handshake, `[name, value]`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
}

/// Why an `--engine` value is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineSpecError {
    /// An entry that is not `KEY=VALUE` with a known key.
    #[error("unknown entry {0:?}: expected name=, cmd=, dir=, arg= or option.NAME=")]
    Entry(String),
    /// A required key is missing.
    #[error("--engine needs {0}=")]
    Missing(&'static str),
    /// The name is not one word of letters, digits, `_`, `-`, `.`, `:`.
    #[error("an engine's name must be letters, digits, _, -, . or :, got {0:?}")]
    Name(String),
    /// The command does not split into words.
    #[error("{0}")]
    Command(LaunchError),
}

/// Whether `entry` starts a new `KEY=VALUE` entry.
fn starts_entry(entry: &str) -> bool {
    ["name=", "cmd=", "dir=", "arg=", "option."]
        .iter()
        .any(|k| entry.starts_with(k))
}

impl EngineSpec {
    /// Parses `name=NAME,cmd=COMMAND[,dir=DIR][,arg=ARG…][,option.K=V…]`. A comma not followed
    /// by a known key belongs to the value before it, so commands may hold commas.
    pub fn parse(text: &str) -> Result<EngineSpec, EngineSpecError> {
        let mut entries: Vec<String> = Vec::new();
        for part in text.split(',') {
            match entries.last_mut() {
                Some(last) if !starts_entry(part) => {
                    last.push(',');
                    last.push_str(part);
                }
                _ => entries.push(part.to_string()),
            }
        }
        let (mut name, mut cmd, mut dir) = (None, None, None);
        let (mut args, mut options) = (Vec::new(), Vec::new());
        for entry in entries {
            let (key, value) = entry
                .split_once('=')
                .ok_or_else(|| EngineSpecError::Entry(entry.clone()))?;
            match key {
                "name" => name = Some(value.to_string()),
                "cmd" => cmd = Some(value.to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "arg" => args.push(value.to_string()),
                _ => match key.strip_prefix("option.") {
                    Some(k) if !k.is_empty() => options.push((k.to_string(), value.to_string())),
                    _ => return Err(EngineSpecError::Entry(entry.clone())),
                },
            }
        }
        let spec = EngineSpec {
            name: name.ok_or(EngineSpecError::Missing("name"))?,
            cmd: cmd.ok_or(EngineSpecError::Missing("cmd"))?,
            dir,
            args,
            options,
        };
        spec.launch()?;
        let word = |c: char| c.is_ascii_alphanumeric() || "_-.:".contains(c);
        if spec.name.is_empty() || !spec.name.chars().all(word) {
            return Err(EngineSpecError::Name(spec.name));
        }
        Ok(spec)
    }

    /// How to start it: `cmd` split as a shell would, or `cmd` and `args` as given.
    pub fn launch(&self) -> Result<Launch, EngineSpecError> {
        if self.args.is_empty() {
            Launch::from_command_line(&self.cmd, self.dir.clone()).map_err(EngineSpecError::Command)
        } else {
            Ok(Launch {
                program: self.cmd.clone(),
                args: self.args.clone(),
                dir: self.dir.clone(),
            })
        }
    }
}

/// One participant of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Participant {
    /// A built-in bot.
    Bot(BotSpec),
    /// An external engine.
    Engine(EngineSpec),
}

impl Participant {
    /// The bot, if it is one.
    pub fn bot(&self) -> Option<&BotSpec> {
        match self {
            Participant::Bot(b) => Some(b),
            Participant::Engine(_) => None,
        }
    }

    /// The engine, if it is one.
    pub fn engine(&self) -> Option<&EngineSpec> {
        match self {
            Participant::Bot(_) => None,
            Participant::Engine(e) => Some(e),
        }
    }
}

impl Serialize for Participant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Participant::Bot(b) => s.serialize_str(&b.to_string()),
            Participant::Engine(e) => e.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Participant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Participant, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Bot(String),
            Engine(EngineSpec),
        }
        match Stored::deserialize(d)? {
            Stored::Bot(text) => BotSpec::parse(&text)
                .map(Participant::Bot)
                .map_err(serde::de::Error::custom),
            Stored::Engine(e) => Ok(Participant::Engine(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_read_with_commas_in_commands() {
        let e = EngineSpec::parse(
            "name=mine,cmd=python3 -c 'print(1,2)',dir=engines,option.Depth=6,option.Style=a,b",
        )
        .unwrap();
        assert_eq!(e.name, "mine");
        assert_eq!(e.cmd, "python3 -c 'print(1,2)'");
        assert_eq!(e.dir, Some(PathBuf::from("engines")));
        assert_eq!(
            e.options,
            vec![("Depth".into(), "6".into()), ("Style".into(), "a,b".into())]
        );
        assert_eq!(e.launch().unwrap().args, vec!["-c", "print(1,2)"]);
        let e = EngineSpec::parse("name=x,cmd=my engine,arg=--fast,arg=a b").unwrap();
        let l = e.launch().unwrap();
        assert_eq!(
            (l.program.as_str(), l.args),
            ("my engine", vec!["--fast".to_string(), "a b".into()])
        );
        assert_eq!(
            EngineSpec::parse("cmd=x"),
            Err(EngineSpecError::Missing("name"))
        );
        assert!(EngineSpec::parse("name=a b,cmd=x").is_err());
        assert!(EngineSpec::parse("name=a,cmd='x").is_err());
        // An unknown key after a known one belongs to its value; at the start it is refused.
        assert_eq!(
            EngineSpec::parse("name=a,cmd=x,speed=3").unwrap().cmd,
            "x,speed=3"
        );
        assert_eq!(
            EngineSpec::parse("speed=3,name=a,cmd=x"),
            Err(EngineSpecError::Entry("speed=3".into()))
        );
    }

    #[test]
    fn participants_round_trip_through_json() {
        let both = vec![
            Participant::Bot(BotSpec::parse("level:2").unwrap()),
            Participant::Engine(EngineSpec::parse("name=e,cmd=./e,option.Seed=3").unwrap()),
        ];
        let text = serde_json::to_string(&both).unwrap();
        assert!(text.starts_with("[\"level:2\",{\"name\":\"e\""), "{text}");
        let back: Vec<Participant> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, both);
    }
}
