//! The quick-pairing presets: the few games a player can ask to be paired for in one click,
//! each a pool of its own.

use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Config;

/// One preset: its name, its description and the game its rooms play.
#[derive(Clone, Debug)]
pub(crate) struct Preset {
    /// The name a `seek` gives.
    pub name: &'static str,
    /// What it is, in words.
    pub title: &'static str,
    /// The game, as a room is created with it (unrated: a room is rated when every person in
    /// it has an account).
    pub config: ConfigJson,
    /// The same, validated.
    pub rules: Config,
}

/// The presets, in the order they are listed. Each is a game people finish in a few minutes:
/// a clock on every move keeps a pairing from stalling on someone who walked away.
pub(crate) fn presets() -> Vec<Preset> {
    [
        (
            "duel",
            "JChomp, 2 players, 7×7, eat 1×2, 30 s a move",
            r#"{"rows":7,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}"#,
        ),
        (
            "blitz",
            "JChomp, 2 players, 6×6, eat 1×1, 10 s a move",
            r#"{"rows":6,"cols":6,"players":2,"eat":[1,1],"poison":[[0,0]],"move_time_ms":10000}"#,
        ),
        (
            "classic",
            "classic Chomp, 2 players, 7×7, 30 s a move",
            r#"{"rows":7,"cols":7,"players":2,"variant":"classic","poison":[[0,0]],"move_time_ms":30000}"#,
        ),
        (
            "three",
            "JChomp, 3 players, 8×8, eat 1×2, 30 s a move",
            r#"{"rows":8,"cols":8,"players":3,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}"#,
        ),
        (
            "four",
            "JChomp, 4 players, 9×9, eat 2×2, two poison cells, 30 s a move",
            r#"{"rows":9,"cols":9,"players":4,"eat":[2,2],"poison":[[0,0],[8,8]],"move_time_ms":30000}"#,
        ),
    ]
    .into_iter()
    .filter_map(|(name, title, json)| {
        // The table above is tested to parse and validate; a preset that did not would be
        // left out rather than take the server down.
        let config: ConfigJson = serde_json::from_str(json).ok()?;
        let rules = config.validate().ok()?;
        Some(Preset {
            name,
            title,
            config,
            rules,
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_a_valid_game_with_a_clock_and_a_name_of_its_own() {
        let all = presets();
        assert_eq!(all.len(), 5);
        let mut names: Vec<_> = all.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 5);
        for p in &all {
            assert!(p.config.move_time_ms.is_some(), "{}", p.name);
            assert!(!p.config.rated, "{}", p.name);
            assert_eq!(i64::from(p.rules.players()), p.config.players, "{}", p.name);
        }
    }
}
