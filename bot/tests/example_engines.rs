//! The example engines in `clients/engines/` (Python and Node), each started as a real process
//! and spoken to through the crate's engine-protocol codec: the handshake, `isready`, `stop`,
//! unknown and unreadable lines, `go infinite`, `quit`, a refused protocol version, and over
//! many random positions (JChomp and classic Chomp, two to four players) a valid selection that
//! never eats poison while a safe one exists, takes an immediate win, avoids handing the next
//! seat one, and replays move for move under the same `Seed`.

// Helpers outside `#[test]` functions panic on purpose when an engine misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bot::jep::{Command, Go, OptionKind, Reply};
use jchomp_engine::player::immediate_wins;
use jchomp_engine::{Player, RandomPlayer, Rng};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Bits, Cell, Config, Game, Position, Variant};
use jchomp_testkit::board;
use jchomp_testkit::system::{self, Program};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

/// How long a reply may take before the test fails (generous: the machine may be slow).
const REPLY_TIME: Duration = Duration::from_secs(10);

/// The boards the positions are drawn from: several eat sizes, poison counts and player counts.
const BOARDS: [&str; 11] = [
    "5x6 eat 1x2 poison 0,0 poison 4,5",
    "6x6 eat 2x2 poison 2,3",
    "6x7 eat 1x2 poison 2,3 players 3",
    "5x5 eat 2x1 poison 0,0 poison 2,2 players 4",
    "7x5 eat 1x3 poison 3,1 players 3",
    "4x4 poison 1,1",
    "8x8 eat 3x3 poison 0,0 poison 7,7 poison 3,4",
    "6x6 poison 0,0 poison 5,5 poison 2,3 poison 3,2 players 4",
    "5x6 variant classic poison 0,0",
    "6x5 variant classic poison 1,2 poison 4,0 players 3",
    "4x7 variant classic poison 0,0 poison 3,6 players 4",
];

/// A running engine: its input, its output lines (read on a thread, so that every wait has a
/// limit) and everything it wrote on its standard error.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    errors: Arc<Mutex<String>>,
}

impl Engine {
    /// Starts `script` (a path from the workspace root) with `program`, which must be installed.
    fn start(program: Program, script: &str) -> Engine {
        let interpreter = system::require(program);
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut child = std::process::Command::new(&interpreter)
            .arg(root.join(script))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {} {script}: {e}", interpreter.display()));
        let (tx, lines) = channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let errors = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let sink = Arc::clone(&errors);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdin = child.stdin.take().unwrap();
        Engine {
            child,
            stdin,
            lines,
            errors,
        }
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the engine reads its input");
        self.stdin.flush().expect("the engine reads its input");
    }

    fn send(&mut self, command: &Command) {
        self.send_line(&command.to_string());
    }

    /// The next line, read as a reply the protocol knows.
    fn reply(&mut self) -> Reply {
        let line = self.lines.recv_timeout(REPLY_TIME).unwrap_or_else(|_| {
            panic!(
                "no line from the engine within {REPLY_TIME:?}; its errors: {}",
                self.errors()
            )
        });
        match Reply::parse(&line) {
            Ok(Some(reply)) => reply,
            other => panic!("the engine wrote {line:?}, which reads as {other:?}"),
        }
    }

    /// `isready`, and `readyok` as the very next line.
    fn ready(&mut self) {
        self.send(&Command::IsReady);
        assert_eq!(self.reply(), Reply::ReadyOk);
    }

    /// `position` and `go`, and the `bestmove` after any `info` lines.
    fn best_move(&mut self, config: &Config, moves: &[Cell], go: Go) -> Cell {
        self.send(&Command::Position {
            config: ConfigJson::new(config, None),
            moves: moves.to_vec(),
        });
        self.send(&Command::Go(go));
        loop {
            match self.reply() {
                Reply::BestMove(cell) => return cell,
                Reply::Info(_) => {}
                other => panic!("expected bestmove, got {other:?}"),
            }
        }
    }

    fn errors(&self) -> String {
        self.errors.lock().unwrap().clone()
    }

    /// Waits until the engine's standard error mentions `word` (it is read on another thread).
    fn said_on_stderr(&self, word: &str) {
        let start = Instant::now();
        while !self.errors().contains(word) {
            assert!(
                start.elapsed() < REPLY_TIME,
                "no word of {word:?} on stderr: {}",
                self.errors()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits up to `limit` for the process to exit with success.
    fn exits_within(mut self, limit: Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the engine exited with {status}");
                return;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the engine was still running {limit:?} after it was told to end");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The handshake, checked line by line until `jepok`.
fn handshake(engine: &mut Engine) {
    engine.send(&Command::Hello { version: 1 });
    assert!(matches!(engine.reply(), Reply::Name(n) if !n.is_empty()));
    let (mut seed, mut variants, mut players) = (false, Vec::new(), Vec::new());
    loop {
        match engine.reply() {
            Reply::JepOk => break,
            Reply::Author(_) => {}
            Reply::Option(o) => {
                seed |= o.name == "Seed" && matches!(o.kind, OptionKind::Spin { min: 0, .. });
            }
            Reply::Variants(v) => variants.extend(v),
            Reply::Players(p) => players.extend(p),
            other => panic!("{other:?} in the handshake"),
        }
    }
    assert!(seed, "the handshake declares Seed as a spin from 0");
    variants.sort_by_key(|v| v.name());
    assert_eq!(variants, [Variant::Classic, Variant::JChomp]);
    players.sort_unstable();
    assert_eq!(players, [2, 3, 4]);
}

/// Lines an engine must ignore or refuse without answering: it is still ready after each one,
/// and says why on its standard error.
fn ignores_what_it_cannot_use(engine: &mut Engine) {
    for line in [
        "ucinewgame",
        "",
        "stop",
        "position config {\"rows\":4",
        "setoption name Nonsense value 3",
    ] {
        engine.send_line(line);
        engine.ready();
    }
    engine.said_on_stderr("ucinewgame");
    engine.said_on_stderr("Nonsense");
}

/// The selections after which the next seat has no immediate win.
fn quiet_selections(config: &Config, position: &Position) -> Bits {
    let mut quiet = Bits::EMPTY;
    for index in position.safe_selections(config).iter() {
        let mut child = *position;
        child.play(config, Cell::from_index(index));
        if immediate_wins(config, &child).is_empty() {
            quiet |= Bits::single(index);
        }
    }
    quiet
}

/// What the positions exercised.
#[derive(Default)]
struct Tally {
    checked: usize,
    wins: usize,
    quiet: usize,
}

/// Checks `cell`, the engine's answer at `position`: valid, safe when it can be, an immediate
/// win when there is one, else a selection that hands the next seat none when there is one.
fn check_answer(config: &Config, position: &Position, cell: Cell, tally: &mut Tally) {
    tally.checked += 1;
    let at = format!("{config} after {:?}: {cell}", position.eaten(config));
    assert!(
        position
            .check(config, cell.row.into(), cell.col.into())
            .is_ok(),
        "invalid selection at {at}"
    );
    let index = cell.index();
    let safe = position.safe_selections(config);
    assert!(
        safe.is_empty() || safe.contains(index),
        "ate poison at {at}"
    );
    let wins = immediate_wins(config, position);
    if !wins.is_empty() {
        tally.wins += 1;
        assert!(wins.contains(index), "missed an immediate win at {at}");
        return;
    }
    let quiet = quiet_selections(config, position);
    if !quiet.is_empty() && quiet != safe {
        tally.quiet += 1;
        assert!(quiet.contains(index), "handed the next seat a win at {at}");
    }
}

/// A `go` for `seat`, with limits that vary with `ply`: none, clocks, a move time.
fn go(seat: u8, players: u8, ply: usize) -> Go {
    match ply % 3 {
        0 => Go {
            seat,
            ..Go::default()
        },
        1 => Go {
            seat,
            clocks: vec![60_000; players.into()],
            inc: Some(100),
            ..Go::default()
        },
        _ => Go {
            seat,
            movetime: Some(4_000),
            ..Go::default()
        },
    }
}

/// Starts a game: `Seed`, `newgame`, `isready`.
fn new_game(engine: &mut Engine, seed: u64) {
    engine.send(&Command::SetOption {
        name: "Seed".into(),
        value: Some(seed.to_string()),
    });
    engine.send(&Command::NewGame);
    engine.ready();
}

/// Asks the engine at every position of games where it holds one seat and a random player the
/// others, and checks each answer.
fn plays_sensibly(engine: &mut Engine) {
    let mut tally = Tally::default();
    for (b, notation) in BOARDS.iter().enumerate() {
        let config = board(notation);
        for game_no in 0..8u64 {
            let seed = b as u64 * 100 + game_no;
            new_game(engine, seed);
            let engine_seat = (game_no % u64::from(config.players())) as u8;
            let mut others = RandomPlayer::new(seed);
            let mut game = Game::new(config);
            while let Some(seat) = game.to_move() {
                let position = *game.position();
                let moves: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
                let go = go(seat, config.players(), moves.len());
                let answer = engine.best_move(&config, &moves, go);
                check_answer(&config, &position, answer, &mut tally);
                let cell = if seat == engine_seat {
                    answer
                } else {
                    others.choose(&config, &position).unwrap()
                };
                game.select(cell.row.into(), cell.col.into()).unwrap();
            }
        }
    }
    let Tally {
        checked,
        wins,
        quiet,
    } = tally;
    assert!(
        checked > 600 && wins > 25 && quiet > 25,
        "too few positions exercised: {checked} checked, {wins} wins, {quiet} quiet"
    );
}

/// A whole game of the engine against itself under `seed`.
fn self_play(engine: &mut Engine, config: &Config, seed: u64) -> Vec<Cell> {
    new_game(engine, seed);
    let mut game = Game::new(*config);
    while let Some(seat) = game.to_move() {
        let moves: Vec<Cell> = game.moves().iter().map(|m| m.cell).collect();
        let cell = engine.best_move(config, &moves, go(seat, config.players(), 0));
        game.select(cell.row.into(), cell.col.into()).unwrap();
    }
    game.moves().iter().map(|m| m.cell).collect()
}

/// The same `Seed` plays the same game; different seeds play different games.
fn replays_with_its_seed(engine: &mut Engine) {
    let config = board("9x9 eat 1x2 poison 4,4 players 3");
    let first = self_play(engine, &config, 7);
    assert_eq!(self_play(engine, &config, 7), first);
    let mut rng = Rng::new(3);
    let others: Vec<Vec<Cell>> = (0..4)
        .map(|_| self_play(engine, &config, rng.below(1 << 31)))
        .collect();
    assert!(others.iter().any(|g| *g != first), "Seed changes nothing");
}

/// `go infinite` is answered on `stop`, and `isready` meanwhile.
fn answers_infinite_on_stop(engine: &mut Engine) {
    let config = board("5x5 eat 1x2 poison 0,0");
    engine.send(&Command::Position {
        config: ConfigJson::new(&config, None),
        moves: vec![],
    });
    engine.send(&Command::Go(Go {
        seat: 0,
        infinite: true,
        ..Go::default()
    }));
    engine.ready();
    engine.send(&Command::Stop);
    let Reply::BestMove(cell) = engine.reply() else {
        panic!("stop after go infinite answers bestmove")
    };
    let position = Position::start(&config);
    assert!(position.safe_selections(&config).contains(cell.index()));
    engine.ready();
}

/// One engine process through every check, then `quit`.
fn keeps_the_protocol(program: Program, script: &str) {
    let mut engine = Engine::start(program, script);
    handshake(&mut engine);
    engine.ready();
    ignores_what_it_cannot_use(&mut engine);
    answers_infinite_on_stop(&mut engine);
    plays_sensibly(&mut engine);
    replays_with_its_seed(&mut engine);
    engine.send(&Command::Quit);
    engine.exits_within(Duration::from_secs(1));
}

/// `jep 2` is refused with `jeperror`, and the engine exits.
fn refuses_another_version(program: Program, script: &str) {
    let mut engine = Engine::start(program, script);
    engine.send(&Command::Hello { version: 2 });
    assert!(matches!(engine.reply(), Reply::JepError(_)));
    engine.exits_within(Duration::from_secs(2));
}

#[test]
fn the_python_engine_keeps_the_protocol_and_plays_sensibly() {
    keeps_the_protocol(system::PYTHON3, "clients/engines/python/engine.py");
}

#[test]
fn the_node_engine_keeps_the_protocol_and_plays_sensibly() {
    keeps_the_protocol(system::NODE, "clients/engines/node/engine.js");
}

#[test]
fn both_engines_refuse_another_protocol_version() {
    refuses_another_version(system::PYTHON3, "clients/engines/python/engine.py");
    refuses_another_version(system::NODE, "clients/engines/node/engine.js");
}

/// The `--engine` value that runs the example `script` (a path from the workspace root) with
/// `program` under the name `name`.
fn engine_flag(name: &str, program: Program, script: &str) -> String {
    let interpreter = system::require(program);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    format!(
        "--engine=name={name},cmd={},arg={}",
        interpreter.display(),
        root.join(script).display()
    )
}

/// Plays a real tournament of both example engines against built-in bots with `rest` (the
/// runner is `jchomp-bot tournament`); every game ends with no engine failure and replays.
fn tournament_with_both(name: &str, rest: &str) -> serde_json::Value {
    let out = support::out_dir(name);
    let mut args = vec![
        engine_flag("py", system::PYTHON3, "clients/engines/python/engine.py"),
        engine_flag("node", system::NODE, "clients/engines/node/engine.js"),
    ];
    args.extend(rest.split_whitespace().map(String::from));
    let (records, results) = support::tournament(&args, &out);
    for record in &records {
        assert_eq!(record.failure, None, "{record:?}");
        record.replay().unwrap();
    }
    assert!(records.len() >= 12, "{} games", records.len());
    std::fs::remove_dir_all(&out).unwrap();
    assert_eq!(results["status"], "finished", "{results}");
    results
}

#[test]
fn both_engines_play_tournaments_against_built_in_bots() {
    // Three seats of JChomp, then two of classic Chomp, under a clock and a fixed move time.
    tournament_with_both(
        "examples-three",
        "--bot level:1 --bot random --players 3 --games 24 --tc 10s+100ms --concurrency 2",
    );
    let results = tournament_with_both(
        "examples-classic",
        "--bot random --variant classic --size 5x6 --games 24 --st 200ms --concurrency 2",
    );
    // Against `random` in classic Chomp both take immediate wins and avoid poison: neither
    // scores below it.
    let score = |name: &str| -> f64 {
        results["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["score"].as_f64())
            .unwrap_or_else(|| panic!("{name} in {results}"))
    };
    assert!(score("py") >= score("random"), "{results}");
    assert!(score("node") >= score("random"), "{results}");
}
