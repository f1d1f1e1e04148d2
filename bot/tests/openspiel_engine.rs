//! The OpenSpiel engine (`clients/engines/openspiel/engine.py`) speaks the engine protocol
//! (docs/ENGINE.md), read with the bot crate's codec: it shakes hands, answers `isready` at once
//! (also during a search), plays whole games with valid selections that avoid poison while
//! they can, answers within `movetime`, ends an `infinite` search on `stop`, replays a choice
//! for the same `Seed`, and exits on `quit`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod openspiel;

use jchomp_bot::jep::{Command, Go, OptionKind, Reply, Score};
use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Cell, Config, Game, Status, Variant};
use jchomp_testkit::board;
use jchomp_testkit::model::Model;
use openspiel::PyProcess;
use std::time::{Duration, Instant};

/// The runner's margin past a move's time (docs/ENGINE.md).
const MARGIN: Duration = Duration::from_millis(100);
/// How long the engine may take to start (Python loads numpy and OpenSpiel) and to answer
/// `isready`.
const START: Duration = Duration::from_secs(30);
const READY: Duration = Duration::from_secs(5);

struct Engine(PyProcess);

impl Engine {
    /// Starts the engine and reads its handshake up to `jepok`.
    fn start() -> (Engine, Vec<Reply>) {
        let mut engine = Engine(PyProcess::python(&["engine.py"]));
        engine.send(&Command::Hello { version: 1 });
        let mut handshake = vec![engine.reply(START)];
        while handshake.last() != Some(&Reply::JepOk) {
            handshake.push(engine.reply(READY));
        }
        (engine, handshake)
    }

    fn send(&mut self, command: &Command) {
        self.0.send(&command.to_string());
    }

    /// The next line the protocol knows, read with the codec.
    fn reply(&mut self, within: Duration) -> Reply {
        loop {
            let line = self.0.read(within);
            if let Some(reply) = Reply::parse(&line).unwrap_or_else(|e| panic!("{line:?}: {e}")) {
                return reply;
            }
        }
    }

    /// `isready` answered by `readyok` within the protocol's 5 s.
    fn ready(&mut self) {
        self.send(&Command::IsReady);
        assert_eq!(self.reply(READY), Reply::ReadyOk);
    }

    /// Sends the game and `go`; the `bestmove` and the `info` lines before it, and how long it
    /// took.
    fn go(&mut self, game: &Game, go: Go, within: Duration) -> (Cell, Vec<Reply>, Duration) {
        let moves = game.moves().iter().map(|m| m.cell).collect();
        let config = ConfigJson::new(game.config(), None);
        self.send(&Command::Position { config, moves });
        let started = Instant::now();
        self.send(&Command::Go(go));
        let mut infos = Vec::new();
        loop {
            match self.reply(within) {
                Reply::BestMove(cell) => return (cell, infos, started.elapsed()),
                info @ Reply::Info(_) => infos.push(info),
                other => panic!("unexpected {other:?} during a search"),
            }
        }
    }
}

/// `cell` is a valid selection on `game`, and eats no poison when a safe one exists.
fn assert_good_move(game: &Game, cell: Cell) {
    let model = game
        .moves()
        .iter()
        .fold(Model::start(game.config()), |m, mv| {
            m.after(mv.cell.row.into(), mv.cell.col.into())
        });
    let (row, col) = (i64::from(cell.row), i64::from(cell.col));
    assert_eq!(
        model.refusal(row, col),
        None,
        "{cell} on {:?}",
        game.moves()
    );
    let safe_exists = model
        .valid()
        .iter()
        .any(|&(r, c)| !model.after(r, c).poisoned());
    assert!(
        !safe_exists || !model.after(row, col).poisoned(),
        "{cell} eats poison though a safe selection exists"
    );
}

fn go_seat(game: &Game) -> Go {
    let Some(seat) = game.to_move() else {
        panic!("the game is over")
    };
    Go {
        seat,
        ..Go::default()
    }
}

#[test]
fn the_handshake_declares_options_variants_and_players() {
    let (mut engine, handshake) = Engine::start();
    assert!(matches!(handshake[0], Reply::Name(_)), "{handshake:?}");
    assert!(handshake.contains(&Reply::Variants(vec![Variant::JChomp, Variant::Classic])));
    assert!(handshake.contains(&Reply::Players(vec![2, 3, 4])));
    let spin = |name: &str| {
        handshake.iter().any(|r| {
            matches!(r, Reply::Option(o) if o.name == name && matches!(o.kind, OptionKind::Spin { .. }))
        })
    };
    assert!(spin("Seed") && spin("Simulations"), "{handshake:?}");
    engine.ready();
    engine.send(&Command::Quit);
    assert!(engine.0.wait(Duration::from_secs(1)).success());
}

#[test]
fn an_old_version_is_refused() {
    let mut engine = PyProcess::python(&["engine.py"]);
    engine.send("jep 2");
    assert_eq!(engine.read(START), "jeperror unsupported version");
}

#[test]
fn it_plays_whole_games_of_every_variant_and_player_count() {
    let (mut engine, _) = Engine::start();
    let boards = [
        "4x5 players 3 eat 1x2 poison 0,0",
        "6x6 players 4 eat 2x2 poison 2,3 poison 5,5",
        "5x7 eat 3x1 poison 0,0 poison 4,6",
        "3x5 variant classic poison 0,0",
        "4x6 variant classic players 3 poison 0,0 poison 2,5",
        "1x9 variant classic players 4 poison 0,4",
    ];
    for notation in boards {
        engine.send(&Command::NewGame);
        engine.ready();
        let mut game = Game::new(board(notation));
        while game.to_move().is_some() {
            let go = Go {
                nodes: Some(60),
                ..go_seat(&game)
            };
            let (cell, infos, _) = engine.go(&game, go, START);
            assert!(
                infos.iter().all(|i| matches!(i, Reply::Info(i) if matches!(i.score, Some(Score::Value(v)) if (0.0..=1.0).contains(&v)))),
                "{infos:?}"
            );
            assert_good_move(&game, cell);
            let status = game.select(cell.row.into(), cell.col.into()).unwrap();
            if let Status::Over(result) = status {
                assert!(result.loser().is_some() || !notation.contains("classic"));
            }
        }
    }
}

#[test]
fn it_answers_within_movetime_and_isready_during_the_search() {
    let (mut engine, _) = Engine::start();
    for notation in [
        "15x15 eat 1x1 poison 7,7",
        "15x15 variant classic players 2 poison 0,0",
        "8x9 players 3 eat 1x2 poison 0,0",
    ] {
        let game = Game::new(board(notation));
        let movetime = Duration::from_millis(400);
        let go = Go {
            movetime: Some(400),
            ..go_seat(&game)
        };
        let (cell, _, took) = engine.go(&game, go, movetime + MARGIN);
        assert!(took <= movetime + MARGIN, "{notation}: {took:?}");
        assert_good_move(&game, cell);
    }
    // A long search (a budget of simulations, no time) still answers isready at once.
    let game = Game::new(board("15x15 eat 1x1 poison 7,7"));
    let moves = Vec::new();
    engine.send(&Command::Position {
        config: ConfigJson::new(game.config(), None),
        moves,
    });
    engine.send(&Command::Go(Go {
        nodes: Some(1_000_000),
        ..go_seat(&game)
    }));
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    engine.ready();
    assert!(
        asked.elapsed() < Duration::from_millis(500),
        "{:?}",
        asked.elapsed()
    );
    engine.send(&Command::Quit);
    assert!(engine.0.wait(Duration::from_secs(1)).success());
}

#[test]
fn stop_ends_an_infinite_search() {
    let (mut engine, _) = Engine::start();
    let game = Game::new(board("10x12 players 2 eat 1x2 poison 0,0"));
    engine.send(&Command::Position {
        config: ConfigJson::new(game.config(), None),
        moves: Vec::new(),
    });
    engine.send(&Command::Go(Go {
        infinite: true,
        ..go_seat(&game)
    }));
    std::thread::sleep(Duration::from_millis(300));
    let stopped = Instant::now();
    engine.send(&Command::Stop);
    loop {
        if let Reply::BestMove(cell) = engine.reply(READY) {
            assert_good_move(&game, cell);
            break;
        }
    }
    assert!(
        stopped.elapsed() < Duration::from_millis(500),
        "{:?}",
        stopped.elapsed()
    );
}

#[test]
fn the_same_seed_replays_the_same_choices() {
    let (mut engine, _) = Engine::start();
    let config: Config = board("6x7 players 3 eat 1x2 poison 0,0 poison 3,4");
    let mut choices = Vec::new();
    for seed in [7, 7, 8] {
        engine.send(&Command::SetOption {
            name: "Seed".into(),
            value: Some(seed.to_string()),
        });
        engine.send(&Command::NewGame);
        engine.ready();
        let mut game = Game::new(config);
        let mut cells = Vec::new();
        for _ in 0..4 {
            let go = Go {
                nodes: Some(40),
                ..go_seat(&game)
            };
            let (cell, _, _) = engine.go(&game, go, START);
            game.select(cell.row.into(), cell.col.into()).unwrap();
            cells.push(cell);
        }
        choices.push(cells);
    }
    assert_eq!(choices[0], choices[1]);
    assert_ne!(choices[0], choices[2], "another seed, other choices");
}
