//! The server's tournaments file (`--tournaments FILE`): a JSON array of tournament specs,
//! each checked as `create_tournament` checks one, read once at start. A bad file is refused
//! in words naming the entry and why, and the server does not start.

use super::{MAX_PLAYING, checked};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::TournamentSpec;
use std::path::Path;

/// The tournaments of the file at `path`, each checked, with its start configurations; or why
/// the file is refused.
pub fn read_file(path: &Path) -> Result<Vec<(TournamentSpec, Vec<ConfigJson>)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    parse(&text)
}

/// The tournaments `text` lists, checked.
fn parse(text: &str) -> Result<Vec<(TournamentSpec, Vec<ConfigJson>)>, String> {
    let entries: Vec<serde_json::Value> = serde_json::from_str(text)
        .map_err(|e| format!("expected a JSON array of tournaments: {e}"))?;
    if entries.len() > MAX_PLAYING {
        return Err(format!(
            "it lists {} tournaments; the server runs at most {MAX_PLAYING} at once",
            entries.len()
        ));
    }
    let mut out: Vec<(TournamentSpec, Vec<ConfigJson>)> = Vec::with_capacity(entries.len());
    for (i, value) in entries.into_iter().enumerate() {
        let which = match value.get("name").and_then(|n| n.as_str()) {
            Some(name) => format!("entry {} ({name:?})", i + 1),
            None => format!("entry {}", i + 1),
        };
        let spec: TournamentSpec =
            serde_json::from_value(value).map_err(|e| format!("{which}: {e}"))?;
        let (spec, configs) = checked(spec).map_err(|r| format!("{which}: {}", r.message))?;
        if let Some(first) = out.iter().position(|(s, _)| s.name == spec.name) {
            return Err(format!(
                "{which}: entry {} has that name already; the file's tournaments are told apart by name",
                first + 1
            ));
        }
        out.push((spec, configs));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_or_refused_naming_the_entry() {
        let one = r#"{"name":"nightly","format":{"kind":"swiss","rounds":3},
            "config":{"rows":5,"cols":5,"players":2,"eat":[1,2],"poison":[[0,0]]},
            "start":{"when_joined":4}}"#;
        let read = parse(&format!("[{one}]")).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].0.name, "nightly");
        let twice = parse(&format!("[{one},{one}]")).unwrap_err();
        assert_eq!(
            twice,
            "entry 2 (\"nightly\"): entry 1 has that name already; the file's tournaments are told apart by name"
        );
        let bad = r#"[{"name":"x","format":{"kind":"swiss","rounds":99},
            "config":{"rows":5,"cols":5,"players":2,"eat":[1,2],"poison":[[0,0]]},
            "start":{"when_joined":4}}]"#;
        assert_eq!(
            parse(bad).unwrap_err(),
            "entry 1 (\"x\"): a Swiss tournament plays 1–50 rounds, got 99"
        );
        assert!(
            parse("[{\"name\":\"y\"}]")
                .unwrap_err()
                .starts_with("entry 1 (\"y\"): missing field")
        );
        assert!(
            parse("{}")
                .unwrap_err()
                .starts_with("expected a JSON array")
        );
    }
}
