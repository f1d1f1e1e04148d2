//! The engine protocol carries the built-in bots unchanged: a tournament between
//! `jchomp-bot engine --bot SPEC` processes plays exactly the games of the same tournament
//! played in-process (same seeds, node budgets), in two- and three-player games.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

/// The name of the engine that runs `spec` (an engine's name has no `=`).
fn engine_name(spec: &str) -> String {
    spec.replace('=', "-")
}

/// The same bots, once in-process (`--bot SPEC`) and once each as an engine process
/// (`--engine name=…,cmd=jchomp-bot,arg=engine,arg=--bot,arg=SPEC`).
fn same_games(name: &str, specs: &[&str], rest: &str) {
    let dir = support::out_dir(name);
    let bots: Vec<String> = specs.iter().map(|s| format!("--bot={s}")).collect();
    let engines: Vec<String> = specs
        .iter()
        .map(|s| {
            format!(
                "--engine=name={},cmd={},arg=engine,arg=--bot,arg={s}",
                engine_name(s),
                env!("CARGO_BIN_EXE_jchomp-bot")
            )
        })
        .collect();
    let run = |participants: &[String], out: &str| {
        let mut args = participants.to_vec();
        args.extend(rest.split_whitespace().map(String::from));
        support::tournament(&args, &dir.join(out)).0
    };
    let in_process = run(&bots, "bots");
    let through_engines = run(&engines, "engines");
    assert!(!in_process.is_empty());
    assert_eq!(in_process.len(), through_engines.len());
    for (a, b) in in_process.iter().zip(&through_engines) {
        assert_eq!(a.config, b.config);
        let seats: Vec<String> = a.seats.iter().map(|s| engine_name(s)).collect();
        assert_eq!(seats, b.seats);
        assert_eq!(a.moves, b.moves, "{:?}", a.seats);
        assert_eq!(a.result, b.result);
        assert_eq!(b.failure, None);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn two_player_games_through_engines_are_the_in_process_games() {
    same_games(
        "engine-tournament-two",
        &["mcts:nodes=300", "search:nodes=2000", "random"],
        "--games 12 --st 20s --seed 7 --concurrency 2",
    );
}

#[test]
fn three_player_games_through_engines_are_the_in_process_games() {
    same_games(
        "engine-tournament-three",
        &["brs:nodes=500", "level:2", "greedy"],
        "--players 3 --games 12 --st 20s --seed 11 --concurrency 2",
    );
}
