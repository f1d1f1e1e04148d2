//! A tournament of classic games with a classic database (a small box, built in-process):
//! `level:5` plays from it and never loses a game once it stands on a won position — every game
//! it starts on a won board among them — against greedy and random; and `jchomp-bot
//! tournament --classic-db FILE` hands the file to its bots.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bot::tournament::participant::Participant;
use jchomp_bot::tournament::schedule::Seating;
use jchomp_bot::tournament::starts::Starts;
use jchomp_bot::tournament::{self, Length, Options, Settings};
use jchomp_engine::classic::{Availability, ClassicLibrary};
use jchomp_engine::spec::BotSpec;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::record::Record;
use jchomp_testkit::brute::Outcome;
use jchomp_testkit::classic::{self, Solver};
use jchomp_testkit::{board, temp::TempDir};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

#[test]
fn level_5_never_loses_a_won_classic_game() {
    let boards = [
        "6x6 variant classic poison 0,0",
        "4x6 variant classic poison 0,0",
    ];
    let settings = Settings {
        bots: ["level:5", "greedy", "random"]
            .iter()
            .map(|s| Participant::Bot(BotSpec::parse(s).unwrap()))
            .collect(),
        gauntlet: true,
        players: 2,
        seating: Seating::Rotations,
        starts: Starts::Openings {
            configs: boards
                .iter()
                .map(|b| ConfigJson::new(&board(b), None))
                .collect(),
        },
        seed: 11,
        length: Length::Rounds(10),
        sprt: None,
        margin_ms: 100,
        server: None,
        time_control: None,
    };
    let dir = TempDir::new("tournament-classic");
    let out = dir.path().join("out");
    let library = ClassicLibrary::with_box(None, 6, 6);
    let options = Options {
        concurrency: 2,
        out: Some(out.clone()),
        progress: false,
        interrupt: Arc::new(AtomicBool::new(false)),
        classic: Some(library.clone()),
        debug: false,
    };
    let outcome = tournament::run(settings, &options).unwrap();
    assert_eq!(outcome.played, 40);
    // Read before the first game, since level:5 plays classic games.
    assert!(matches!(library.availability(), Availability::Ready(_)));
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let mut solver = Solver::new();
    let mut won_starts = 0;
    for line in text.lines() {
        let record: Record = serde_json::from_str(line).unwrap();
        let seat = record.seats.iter().position(|s| s == "level:5").unwrap();
        let game = record.replay().unwrap();
        let loser = game.position().result().and_then(|r| r.loser()).unwrap();
        // Follow the game on the kit's board: did level:5 ever stand on a won position?
        let mut rows = classic::rows(&vec![record.config.cols as u8; record.config.rows as usize]);
        let mut stood_on_a_win = false;
        for m in &record.moves {
            if m.seat as usize == seat && solver.solve(&rows).0 == Outcome::Win {
                stood_on_a_win = true;
                won_starts += usize::from(m == &record.moves[0]);
            }
            if (m.row, m.col) == (0, 0) {
                break;
            }
            rows = classic::after(&rows, m.row as usize, m.col as usize);
        }
        if stood_on_a_win {
            assert_ne!(loser, seat as u8, "level:5 lost a won game: {line}");
        }
    }
    // Rectangles are first-player wins: level:5 moved first in half of the games.
    assert_eq!(won_starts, 20);
}

#[test]
fn the_tournament_command_plays_classic_games_from_its_database_file() {
    let dir = TempDir::new("tournament-classic-cli");
    let db = dir.path().join("classic-6x6.db");
    ClassicLibrary::with_box(Some(db.clone()), 6, 6)
        .wait()
        .unwrap();
    let openings = dir.path().join("openings.jsonl");
    std::fs::write(
        &openings,
        "{\"rows\":6,\"cols\":6,\"variant\":\"classic\",\"poison\":[[0,0]]}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args([
            "tournament",
            "--quiet",
            "--bot",
            "level:5",
            "--bot",
            "random",
        ])
        .args(["--rounds", "3", "--openings"])
        .arg(&openings)
        .arg("--classic-db")
        .arg(&db)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.is_empty(), "the database was read: {stderr}");
    assert!(stdout.contains("6 games played"), "{stdout}");
}

#[test]
fn the_tournament_command_draws_classic_boards_with_variant_classic() {
    let dir = TempDir::new("tournament-variant");
    let out_dir = dir.path().join("out");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
            .args([
                "tournament",
                "--quiet",
                "--bot",
                "greedy",
                "--bot",
                "random",
            ])
            .args(["--rounds", "4", "--size", "5x6", "--variant", "classic"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--out", out_dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(out_dir.join("games.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 8);
    for line in text.lines() {
        let record: Record = serde_json::from_str(line).unwrap();
        assert_eq!(
            record.config.validate().unwrap().variant(),
            jchomp_rules::Variant::Classic
        );
        assert!(record.replay().is_ok());
    }
    // Classic games have no eat size: one given is refused in words.
    let out = run(&["--eat", "1x2"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("classic Chomp has no eat size"), "{stderr}");
}
