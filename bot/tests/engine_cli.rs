//! Runs `jchomp-bot engine` as a runner would, through the engine protocol's codec: the
//! handshake and every command, `isready` and `stop` in the middle of a search, `quit`, refused
//! positions and lines, valid moves in every variant and player count, and the same choices as
//! the bot in-process.

// Helpers outside `#[test]` functions panic on purpose when the engine misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bot::jep::{Command, Go, Info, OptionKind, Reply, Rule};
use jchomp_engine::arena::{Untimed, play_game};
use jchomp_engine::player::Player;
use jchomp_engine::spec::BotSpec;
use jchomp_rules::{Cell, Config, Game, Seat, Variant};
use jchomp_testkit::{board, config_json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// The longest any answer may take in these tests (a debug build on a busy machine).
const PATIENCE: Duration = Duration::from_secs(20);

/// A large four-player board on which a search of ten minutes does not end by itself.
const BIG: &str = "15x15 eat 1x1 poison 7,7 players 4";

/// A running `jchomp-bot engine`, read line by line on a thread of its own.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts `jchomp-bot engine --bot SPEC`.
    fn start(spec: &str) -> Engine {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
            .args(["engine", "--bot", spec])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts jchomp-bot engine");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Starts the engine and reads its handshake.
    fn ready(spec: &str) -> Engine {
        let mut engine = Engine::start(spec);
        engine.handshake();
        engine
    }

    fn raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, command: &Command) {
        self.raw(&command.to_string());
    }

    /// The next reply within `within`, `None` if none came; every line must read.
    fn next(&mut self, within: Duration) -> Option<Reply> {
        match self.lines.recv_timeout(within) {
            Ok(line) => Some(Reply::parse(&line).unwrap().expect(&line)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the engine's output ended"),
        }
    }

    /// Every reply up to the first that `last` accepts, which ends the list.
    fn until(&mut self, last: impl Fn(&Reply) -> bool) -> Vec<Reply> {
        let mut replies = Vec::new();
        loop {
            let reply = self
                .next(PATIENCE)
                .unwrap_or_else(|| panic!("no answer in time after {replies:?}"));
            let done = last(&reply);
            replies.push(reply);
            if done {
                return replies;
            }
        }
    }

    fn handshake(&mut self) -> Vec<Reply> {
        self.send(&Command::Hello { version: 1 });
        self.until(|r| *r == Reply::JepOk)
    }

    /// `isready`: the replies that came before `readyok`.
    fn sync(&mut self) -> Vec<Reply> {
        self.send(&Command::IsReady);
        let mut replies = self.until(|r| *r == Reply::ReadyOk);
        replies.pop();
        replies
    }

    fn option(&mut self, name: &str, value: &str) {
        self.send(&Command::SetOption {
            name: name.into(),
            value: Some(value.into()),
        });
    }

    fn position(&mut self, notation: &str, moves: &[Cell]) {
        self.send(&Command::Position {
            config: config_json(notation),
            moves: moves.to_vec(),
        });
    }

    /// Sends `go` and reads up to `bestmove`: the replies before it, and the move.
    fn go(&mut self, go: Go) -> (Vec<Reply>, Cell) {
        self.send(&Command::Go(go));
        let mut replies = self.until(|r| matches!(r, Reply::BestMove(_)));
        let Some(Reply::BestMove(cell)) = replies.pop() else {
            unreachable!()
        };
        (replies, cell)
    }

    /// The engine's move for the seat to move in `game` (the position sent whole).
    fn best(&mut self, notation: &str, game: &Game) -> Cell {
        let moves: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
        self.position(notation, &moves);
        let seat = game.to_move().unwrap();
        let (replies, cell) = self.go(Go {
            seat,
            ..Go::default()
        });
        assert!(
            replies
                .iter()
                .any(|r| matches!(r, Reply::Info(Info { time: Some(_), .. }))),
            "no info line with a time before bestmove: {replies:?}"
        );
        cell
    }

    /// Waits for the process to end; its exit status says it succeeded.
    fn exits(&mut self, within: Duration) {
        let started = Instant::now();
        while started.elapsed() < within {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        panic!("the engine did not exit within {within:?}");
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn go(seat: Seat) -> Go {
    Go {
        seat,
        ..Go::default()
    }
}

/// The text of an `info string` reply.
fn said(reply: &Reply) -> Option<&str> {
    match reply {
        Reply::Info(Info {
            string: Some(s), ..
        }) => Some(s),
        _ => None,
    }
}

/// Whether the replies hold an `info string error: …` containing `what`.
fn refused(replies: &[Reply], what: &str) -> bool {
    replies
        .iter()
        .filter_map(said)
        .any(|s| s.starts_with("error: ") && s.contains(what))
}

/// Whether `cell` is a valid selection in `game` that eats no poison while some selection
/// without poison exists.
fn fair(game: &Game, cell: Cell) -> bool {
    let (config, position) = (game.config(), game.position());
    let valid = position
        .check(config, i64::from(cell.row), i64::from(cell.col))
        .is_ok();
    let safe = position.safe_selections(config);
    valid && (safe.is_empty() || safe.contains(cell.index()))
}

#[test]
fn the_handshake_declares_name_options_variants_and_players() {
    let mut engine = Engine::start("mcts:nodes=500");
    let replies = engine.handshake();
    assert_eq!(replies[0], Reply::Name("jchomp-bot mcts:nodes=500".into()));
    assert!(matches!(replies[1], Reply::Author(_)));
    let option = |name: &str| {
        replies.iter().find_map(|r| match r {
            Reply::Option(o) if o.name == name => Some(o.kind.clone()),
            _ => None,
        })
    };
    assert!(matches!(
        option("Seed"),
        Some(OptionKind::Spin { default: 1, .. })
    ));
    assert_eq!(
        option("Bot"),
        Some(OptionKind::String {
            default: "mcts:nodes=500".into()
        })
    );
    assert!(replies.contains(&Reply::Variants(Variant::ALL.to_vec())));
    assert!(replies.contains(&Reply::Players(vec![2, 3, 4])));
    assert!(replies.contains(&Reply::Rules(Rule::ALL.to_vec())));
    assert_eq!(replies.last(), Some(&Reply::JepOk));
    assert_eq!(engine.sync(), []);
    engine.send(&Command::Quit);
    engine.exits(PATIENCE);
}

#[test]
fn another_version_is_refused_and_the_engine_exits() {
    let mut engine = Engine::start("random");
    engine.send(&Command::Hello { version: 2 });
    assert_eq!(
        engine.next(PATIENCE),
        Some(Reply::JepError("unsupported version".into()))
    );
    engine.exits(PATIENCE);
}

#[test]
fn isready_is_answered_mid_search_and_stop_answers_with_a_valid_move() {
    for spec in ["mcts:time=600s", "search:time=600s"] {
        let mut engine = Engine::ready(spec);
        engine.position(BIG, &[]);
        engine.send(&Command::Go(Go {
            infinite: true,
            ..go(0)
        }));
        thread::sleep(Duration::from_millis(300));
        // The search runs on: readyok comes at once, and no bestmove before it.
        let asked = Instant::now();
        let before = engine.sync();
        assert!(asked.elapsed() < Duration::from_secs(5), "{spec}");
        assert!(
            !before.iter().any(|r| matches!(r, Reply::BestMove(_))),
            "{spec}: {before:?}"
        );
        assert_eq!(engine.next(Duration::from_millis(500)), None, "{spec}");
        let stopped = Instant::now();
        engine.send(&Command::Stop);
        let replies = engine.until(|r| matches!(r, Reply::BestMove(_)));
        assert!(stopped.elapsed() < Duration::from_secs(10), "{spec}");
        let Some(Reply::BestMove(cell)) = replies.last() else {
            unreachable!()
        };
        assert!(fair(&Game::new(board(BIG)), *cell), "{spec}: {cell}");
        // A stop with no search running is not answered.
        engine.send(&Command::Stop);
        assert_eq!(engine.sync(), [], "{spec}");
    }
}

#[test]
fn quit_ends_the_engine_even_mid_search_and_so_does_the_end_of_input() {
    let mut engine = Engine::ready("search:time=600s");
    engine.position(BIG, &[]);
    engine.send(&Command::Go(Go {
        infinite: true,
        ..go(0)
    }));
    thread::sleep(Duration::from_millis(200));
    let quit = Instant::now();
    engine.send(&Command::Quit);
    engine.exits(Duration::from_secs(10));
    assert!(quit.elapsed() < Duration::from_secs(10));

    let mut engine = Engine::ready("random");
    engine.stdin = None;
    engine.exits(PATIENCE);
}

#[test]
fn newgame_and_setoption_mid_search_stop_it_first() {
    let mut engine = Engine::ready("mcts:time=600s");
    for interrupt in [
        Command::NewGame,
        Command::SetOption {
            name: "Seed".into(),
            value: Some("3".into()),
        },
    ] {
        engine.position(BIG, &[]);
        engine.send(&Command::Go(Go {
            infinite: true,
            ..go(0)
        }));
        assert_eq!(engine.next(Duration::from_millis(300)), None);
        engine.send(&interrupt);
        let replies = engine.until(|r| matches!(r, Reply::BestMove(_)));
        assert!(!refused(&replies, ""), "{interrupt}: {replies:?}");
    }
}

#[test]
fn movetime_and_clocks_stop_a_long_search_in_time() {
    let mut engine = Engine::ready("mcts:time=600s");
    engine.position(BIG, &[]);
    for limit in [
        Go {
            movetime: Some(300),
            ..go(0)
        },
        // 2000 / 20 + 0: 100 ms.
        Go {
            clocks: vec![2000, 2000, 2000, 2000],
            inc: Some(0),
            ..go(0)
        },
    ] {
        let started = Instant::now();
        let (_, cell) = engine.go(limit.clone());
        let took = started.elapsed();
        assert!(took < Duration::from_secs(5), "{limit}: {took:?}");
        assert!(fair(&Game::new(board(BIG)), cell), "{limit}");
    }
}

#[test]
fn bad_positions_and_lines_are_refused_and_the_engine_goes_on() {
    let mut engine = Engine::ready("greedy");
    let notation = "4x5 eat 1x2 poison 0,0 players 3";
    let bad_lines = [
        (r#"position config {"rows":4"#, "JSON"),
        ("position fen x", "unexpected"),
        ("go seat x", "seat"),
        ("setoption name", "name"),
    ];
    for (line, why) in bad_lines {
        engine.raw(line);
        assert!(refused(&engine.sync(), why), "{line}");
    }
    // No valid position: go is refused, and no bestmove comes.
    engine.send(&Command::Go(go(0)));
    assert!(refused(&engine.sync(), "no valid position"));
    // A configuration the rules refuse.
    engine.position("4x5 eat 1x2 poison 0,0 players 5", &[]);
    assert!(refused(&engine.sync(), "invalid config"));
    engine.send(&Command::Go(go(0)));
    assert!(refused(&engine.sync(), "no valid position"));
    // A move that is not valid: the position is refused whole.
    engine.position(notation, &[Cell::new(2, 3), Cell::new(2, 3)]);
    assert!(refused(&engine.sync(), "move 2 (2,3)"));
    engine.send(&Command::Go(go(2)));
    assert!(refused(&engine.sync(), "no valid position"));
    // A valid position, asked for the wrong seat.
    engine.position(notation, &[Cell::new(2, 3), Cell::new(1, 1)]);
    engine.send(&Command::Go(go(0)));
    assert!(refused(&engine.sync(), "seat 0 is not to move: seat 2 is"));
    // A game that is over.
    engine.position(
        "1x2 variant classic poison 0,0",
        &[Cell::new(0, 1), Cell::new(0, 0)],
    );
    engine.send(&Command::Go(go(0)));
    assert!(refused(&engine.sync(), "the game is over"));
    // Options it does not have, or values they do not take.
    engine.option("Depth", "3");
    assert!(refused(&engine.sync(), "no option \"Depth\""));
    engine.option("Seed", "many");
    assert!(refused(&engine.sync(), "Seed must be"));
    engine.option("Bot", "minimax");
    assert!(refused(&engine.sync(), "invalid bot spec"));
    // A line far too long, and one that is not UTF-8.
    engine.raw(&"x".repeat(100_000));
    assert!(refused(&engine.sync(), "longer than"));
    let stdin = engine.stdin.as_mut().unwrap();
    stdin.write_all(b"go \xff\xfe\n").unwrap();
    assert!(refused(&engine.sync(), "UTF-8"));
    // After all that, it plays.
    let mut game = Game::new(board(notation));
    game.select(2, 3).unwrap();
    game.select(1, 1).unwrap();
    let cell = engine.best(notation, &game);
    assert!(fair(&game, cell), "{cell}");
}

#[test]
fn unknown_lines_are_ignored() {
    let mut engine = Engine::ready("random");
    for line in [
        "",
        "   ",
        "ucinewgame",
        "hello there",
        "id name x",
        "bestmove 1,1",
    ] {
        engine.raw(line);
    }
    assert_eq!(engine.sync(), []);
}

/// Plays a game with the engine choosing every move; every move must be fair.
fn play_through(engine: &mut Engine, notation: &str) {
    engine.send(&Command::NewGame);
    assert_eq!(engine.sync(), []);
    let mut game = Game::new(board(notation));
    while game.to_move().is_some() {
        let cell = engine.best(notation, &game);
        assert!(
            fair(&game, cell),
            "{notation}: {cell} after {:?}",
            game.moves()
        );
        game.select(i64::from(cell.row), i64::from(cell.col))
            .unwrap();
    }
}

#[test]
fn every_move_is_valid_in_jchomp_and_classic_with_two_to_four_players() {
    let boards = [
        "5x6 eat 1x2 poison 0,0",
        "6x6 eat 2x1 poison 0,0 poison 5,5 players 3",
        "5x5 eat 1x1 poison 2,2 players 4",
        "5x6 variant classic poison 0,0",
        "5x5 variant classic poison 0,0 players 3",
        "4x6 variant classic poison 0,0 players 4",
    ];
    for spec in ["random", "level:1", "mcts:nodes=300", "brs:depth=2"] {
        let mut engine = Engine::ready(spec);
        for notation in boards {
            play_through(&mut engine, notation);
        }
    }
}

/// Edge breaks and both rule options, which the handshake declares: every move is a selection
/// the game's rules allow, to the end of the game.
#[test]
fn every_move_keeps_to_edge_breaks_and_the_rule_options() {
    let boards = [
        "5x6 eat 1x2 poison 0,0 no_square_bites",
        "5x6 variant classic poison 0,0 no_square_bites players 3",
        "4x5 variant breaks poison 1,2",
        "4x5 variant breaks poison 1,2 no_square_bites",
        "5x5 eat 1x1 poison 2,2 play normal",
        "5x6 variant classic poison 0,0 poison 4,5 play normal no_square_bites",
    ];
    for spec in ["random", "level:1", "mcts:nodes=300"] {
        let mut engine = Engine::ready(spec);
        for notation in boards {
            engine.send(&Command::NewGame);
            assert_eq!(engine.sync(), []);
            let mut game = Game::new(board(notation));
            while game.to_move().is_some() {
                let cell = engine.best(notation, &game);
                let (row, col) = (i64::from(cell.row), i64::from(cell.col));
                assert!(
                    game.select(row, col).is_ok(),
                    "{spec} {notation}: {cell} after {:?}",
                    game.moves()
                );
            }
        }
    }
}

/// The moves of a game between in-process bots: seat `s` is `spec` built with `seeds[s]`.
fn in_process(spec: BotSpec, seeds: &[u64], config: &Config) -> Vec<Cell> {
    let mut players: Vec<Box<dyn Player>> =
        seeds.iter().map(|&s| spec.build_with(s, None)).collect();
    let played = play_game(config, &mut players, &[], &Untimed).unwrap();
    assert_eq!(played.failure, None);
    played.game.moves().iter().map(|m| m.cell).collect()
}

/// The same game with one engine process per seat, each given its seat's seed as `value`.
fn through_engines(spec: &str, seeds: &[&str], notation: &str) -> Vec<Cell> {
    let mut engines: Vec<Engine> = seeds
        .iter()
        .map(|seed| {
            let mut e = Engine::ready(spec);
            e.option("Seed", seed);
            e.send(&Command::NewGame);
            assert_eq!(e.sync(), []);
            e
        })
        .collect();
    let mut game = Game::new(board(notation));
    while let Some(seat) = game.to_move() {
        let cell = engines[usize::from(seat)].best(notation, &game);
        game.select(i64::from(cell.row), i64::from(cell.col))
            .unwrap();
    }
    game.moves().iter().map(|m| m.cell).collect()
}

#[test]
fn the_engine_chooses_what_the_bot_chooses_in_process() {
    let cases = [
        ("random", "6x6 eat 1x2 poison 0,0"),
        ("greedy", "6x6 eat 1x1 poison 0,0 players 3"),
        ("search:depth=3", "6x7 eat 1x2 poison 0,0 poison 5,6"),
        ("mcts:nodes=400", "5x6 eat 2x1 poison 2,2 players 3"),
        ("brs:nodes=600", "5x5 eat 1x1 poison 0,0 players 4"),
        ("level:2", "6x6 variant classic poison 0,0"),
    ];
    // The big seed is given as the unsigned number and as the i64 of the same bits.
    let seeds: [(u64, &str); 3] = [
        (1, "1"),
        (42, "42"),
        (0xdead_beef_dead_beef, "-2401053088876216593"),
    ];
    for (spec, notation) in cases {
        let config = board(notation);
        let n = usize::from(config.players());
        for (i, (seed, text)) in seeds.iter().enumerate() {
            let seat_seeds: Vec<u64> = (0..n as u64).map(|s| seed.wrapping_add(s)).collect();
            let texts: Vec<String> = (0..n as u64)
                .map(|s| match (i, s) {
                    (2, 0) => text.to_string(),
                    _ => seed.wrapping_add(s).to_string(),
                })
                .collect();
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let expected = in_process(BotSpec::parse(spec).unwrap(), &seat_seeds, &config);
            let got = through_engines(spec, &texts, notation);
            assert_eq!(got, expected, "{spec} on {notation}, seed {seed}");
        }
    }
}

#[test]
fn a_new_game_or_a_new_bot_builds_the_bot_again() {
    let notation = "6x6 eat 1x2 poison 0,0";
    let config = board(notation);
    // One in-process bot playing both seats of a game.
    let mut alone = BotSpec::Random.build(9);
    let mut game = Game::new(config);
    while game.to_move().is_some() {
        let cell = alone.choose(&config, game.position()).unwrap();
        game.select(i64::from(cell.row), i64::from(cell.col))
            .unwrap();
    }
    let expected: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
    // The engine, told to be another bot with another seed, plays both seats of two games:
    // each is that game, so each game had a new bot.
    let mut engine = Engine::ready("greedy");
    engine.option("Bot", "random");
    engine.option("Seed", "9");
    for _ in 0..2 {
        engine.send(&Command::NewGame);
        let mut game = Game::new(config);
        while game.to_move().is_some() {
            let cell = engine.best(notation, &game);
            game.select(i64::from(cell.row), i64::from(cell.col))
                .unwrap();
        }
        let moves: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
        assert_eq!(moves, expected);
    }
}

/// The depth an `info` line among `replies` gives.
fn depth(replies: &[Reply]) -> Option<u32> {
    replies.iter().find_map(|r| match r {
        Reply::Info(Info { depth: Some(d), .. }) => Some(*d),
        _ => None,
    })
}

#[test]
fn nodes_and_depth_replace_the_budget_for_one_move_where_the_bot_has_one() {
    // Three seats: the search deepens (two-seat node budgets may go to the region solver).
    let notation = "9x9 eat 1x1 poison 4,4 players 3";
    let config = board(notation);
    let start = Game::new(config);
    let first = |spec: &str| {
        let mut p = BotSpec::parse(spec).unwrap().build(5);
        p.choose(&config, start.position()).unwrap()
    };
    let mut engine = Engine::ready("search:depth=1");
    engine.option("Seed", "5");
    for (limit, as_if) in [
        (
            Go {
                depth: Some(4),
                ..go(0)
            },
            "search:depth=4",
        ),
        (
            Go {
                nodes: Some(3000),
                ..go(0)
            },
            "search:nodes=3000",
        ),
    ] {
        engine.send(&Command::NewGame);
        engine.position(notation, &[]);
        let (replies, cell) = engine.go(limit.clone());
        assert_eq!(cell, first(as_if), "{limit}");
        assert!(
            depth(&replies).is_some_and(|d| d > 1),
            "{limit}: {replies:?}"
        );
        // For that move only: the next one searches with the bot's own depth of 1.
        engine.position(notation, &[cell]);
        let (replies, _) = engine.go(go(1));
        assert_eq!(depth(&replies), Some(1), "{replies:?}");
    }
    // A bot without such a budget says so, and answers.
    let mut engine = Engine::ready("mcts:nodes=300");
    engine.position(notation, &[]);
    let (replies, cell) = engine.go(Go {
        depth: Some(3),
        ..go(0)
    });
    assert!(
        replies
            .iter()
            .filter_map(said)
            .any(|s| s.contains("no depth budget")),
        "{replies:?}"
    );
    assert!(fair(&start, cell));
}
