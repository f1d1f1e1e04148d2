//! A tournament's start configurations, pure: what its `starts` name (a quick-pairing preset,
//! a list, or configurations drawn from a seed), each made whole with `config`'s players,
//! clock, `analysis` and `rated` and checked at creation; and which of them a game plays.

use crate::game::refusal::Refusal;
use crate::pairing::Preset;
use jchomp_engine::draw::{Fixed, draw};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Config;
use jchomp_protocol::wire::{DrawnStarts, ErrorCode, TournamentSpec, TournamentStarts};

/// Start configurations a tournament lists or draws at most.
pub(crate) const MAX_STARTS: usize = 64;

/// The configurations `spec.starts` names, in order, each whole and in canonical form; none
/// when it names none (every game plays `spec.config`). `spec.config` must be valid already.
pub(super) fn resolve(
    spec: &TournamentSpec,
    presets: &[Preset],
) -> Result<Vec<ConfigJson>, Refusal> {
    let config = &spec.config;
    match &spec.starts {
        None => Ok(Vec::new()),
        Some(TournamentStarts::Preset(name)) => Ok(vec![preset(config, name, presets)?]),
        Some(TournamentStarts::List(list)) => {
            if !(1..=MAX_STARTS).contains(&list.len()) {
                return Err(bad(format!(
                    "starts list holds 1–{MAX_STARTS} configurations, got {}",
                    list.len()
                )));
            }
            let what = |i: usize| format!("starts list entry {}", i + 1);
            list.iter()
                .enumerate()
                .map(|(i, board)| whole(config, board, &what(i)))
                .collect()
        }
        Some(TournamentStarts::Drawn(drawn)) => drawn_configs(config, *drawn),
    }
}

/// Which of `count` start configurations the games of round `round` play (from 1; in an
/// arena, a game's place in start order): configuration `round - 1` modulo `count`.
pub(super) fn index(round: u32, count: usize) -> usize {
    (round.saturating_sub(1) as usize) % count.max(1)
}

fn bad(message: String) -> Refusal {
    Refusal::new(ErrorCode::BadRequest, message)
}

/// `board`'s board and rule options with `config`'s players, clock, `analysis` and `rated`,
/// checked and in canonical form; refused in words naming it as `what`.
fn whole(config: &ConfigJson, board: &ConfigJson, what: &str) -> Result<ConfigJson, Refusal> {
    if board.players != config.players {
        return Err(bad(format!(
            "{what}: players is {}, but config plays {}-player games",
            board.players, config.players
        )));
    }
    let made = ConfigJson {
        players: config.players,
        move_time_ms: config.move_time_ms,
        analysis: config.analysis,
        rated: config.rated,
        ..board.clone()
    };
    let valid = made
        .validate()
        .map_err(|e| Refusal::new(ErrorCode::InvalidConfig, format!("{what}: {e}")))?;
    Ok(made.canonical(&valid))
}

/// The board of the quick-pairing preset `name`.
fn preset(config: &ConfigJson, name: &str, presets: &[Preset]) -> Result<ConfigJson, Refusal> {
    let Some(p) = presets.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = presets.iter().map(|p| p.name).collect();
        return Err(bad(format!(
            "starts names no preset {name:?}; the presets are {}",
            names.join(", ")
        )));
    };
    whole(config, &p.config, &format!("starts preset {name}"))
}

/// `drawn.count` configurations drawn from `drawn.seed` under `config`'s variant and rule
/// options, number `k` as `jchomp-bot tournament --seed` draws its round `k`.
fn drawn_configs(config: &ConfigJson, drawn: DrawnStarts) -> Result<Vec<ConfigJson>, Refusal> {
    let count = drawn.count as usize;
    if !(1..=MAX_STARTS).contains(&count) {
        return Err(bad(format!(
            "starts drawn: count must be 1–{MAX_STARTS}, got {count}"
        )));
    }
    let fixed = Fixed {
        variant: config.variant,
        options: config.setup().options,
        size: None,
        eat: None,
        poison: &[],
    };
    let players = u8::try_from(config.players).unwrap_or(2);
    (0..count as u64)
        .map(|k| {
            let setup = draw(&fixed, players, drawn.seed, k);
            let board = Config::new(&setup)
                .map(|valid| ConfigJson::new(&valid, None))
                .map_err(|e| bad(format!("starts drawn: configuration {}: {e}", k + 1)))?;
            whole(
                config,
                &board,
                &format!("starts drawn configuration {}", k + 1),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::wire::TournamentFormat;

    fn spec(starts: &str) -> TournamentSpec {
        let json = format!(
            r#"{{"name":"t","format":{{"kind":"round_robin"}},"starts":{starts},
                "config":{{"rows":4,"cols":4,"players":2,"eat":[1,2],"poison":[[0,0]],
                           "move_time_ms":5000,"no_square_bites":true}}}}"#
        );
        serde_json::from_str(&json).unwrap()
    }

    #[test]
    fn a_list_takes_the_clock_of_config_and_refuses_an_entry_by_its_number() {
        let s = spec(
            r#"{"list":[{"rows":5,"cols":6,"players":2,"eat":[1,2],"poison":[[0,0]]},
                        {"rows":4,"cols":4,"players":2,"variant":"classic","poison":[[3,3]]}]}"#,
        );
        assert_eq!(s.format, TournamentFormat::RoundRobin);
        let configs = resolve(&s, &[]).unwrap();
        assert_eq!(configs.len(), 2);
        assert!(configs.iter().all(|c| c.move_time_ms == Some(5000)));
        assert_eq!((configs[0].rows, configs[1].rows), (5, 4));
        let refused = |s: &str| resolve(&spec(s), &[]).unwrap_err().message;
        let three = r#"{"list":[{"rows":5,"cols":6,"players":2,"eat":[1,2],"poison":[[0,0]]},
                               {"rows":5,"cols":6,"players":3,"eat":[1,2],"poison":[[0,0]]}]}"#;
        assert_eq!(
            refused(three),
            "starts list entry 2: players is 3, but config plays 2-player games"
        );
        let big = r#"{"list":[{"rows":16,"cols":6,"players":2,"eat":[1,2],"poison":[[0,0]]}]}"#;
        assert!(
            refused(big).starts_with("starts list entry 1: rows must be"),
            "{}",
            refused(big)
        );
        assert!(refused(r#"{"list":[]}"#).contains("1–64 configurations, got 0"));
    }

    #[test]
    fn draws_repeat_from_their_seed_under_the_rule_options_of_config() {
        let a = resolve(&spec(r#"{"drawn":{"seed":7,"count":5}}"#), &[]).unwrap();
        let b = resolve(&spec(r#"{"drawn":{"seed":7,"count":5}}"#), &[]).unwrap();
        let c = resolve(&spec(r#"{"drawn":{"seed":8,"count":5}}"#), &[]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|c| c.no_square_bites && c.players == 2));
        assert!(
            resolve(&spec(r#"{"drawn":{"seed":7,"count":0}}"#), &[])
                .unwrap_err()
                .message
                .contains("count must be 1–64, got 0")
        );
    }

    #[test]
    fn games_take_the_configurations_round_by_round_in_turn() {
        let order: Vec<usize> = (1..=5).map(|round| index(round, 2)).collect();
        assert_eq!(order, [0, 1, 0, 1, 0]);
        assert_eq!(index(0, 0), 0);
    }
}
