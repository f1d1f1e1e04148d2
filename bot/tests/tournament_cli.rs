//! Runs `jchomp-bot tournament` end to end: the standings, the output directory (every record
//! replays, seats rotate within each start configuration), the pentanomial line of a two-bot
//! match, determinism across thread counts, resume after a hard stop, the SPRT stop, and refused
//! flags.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::expect_used)]

use jchomp_protocol::record::Record;
use jchomp_testkit::temp::temp_dir;
use std::path::Path;
use std::process::Command;

/// Runs `jchomp-bot tournament --quiet` with the flags in `flags` (split at spaces), then
/// `paths` (which may hold spaces).
fn run(flags: &str, paths: &[&Path]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .arg("tournament")
        .arg("--quiet")
        .args(flags.split_whitespace())
        .args(paths)
        .output()
        .expect("runs jchomp-bot");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).expect("output file")
}

fn records(dir: &Path) -> Vec<Record> {
    read(dir, "games.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record per line"))
        .collect()
}

fn results(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(dir, "results.json")).expect("results.json is JSON")
}

#[test]
fn two_bots_write_standings_records_and_rotate_seats() {
    let dir = temp_dir("tournament-basic");
    let (ok, stdout, stderr) = run("--bot random --bot greedy --games 40 --out", &[&dir]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("rank") && stdout.contains("±95%"),
        "{stdout}"
    );
    assert!(stdout.contains("elo is relative to random"), "{stdout}");
    assert!(
        stderr.is_empty(),
        "no progress noise off a terminal: {stderr:?}"
    );
    let recs = records(&dir);
    assert_eq!(recs.len(), 40);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.id.as_deref(), Some(i.to_string().as_str()));
        let game = r.replay().expect("every record replays");
        assert!(game.result().is_some());
        let expected = if i % 2 == 0 {
            ["random", "greedy"]
        } else {
            ["greedy", "random"]
        };
        assert_eq!(r.seats, expected);
    }
    // Both games of a pair share their start configuration; rounds draw new ones.
    for pair in recs.chunks(2) {
        assert_eq!(pair[0].config, pair[1].config);
    }
    assert!(recs.chunks(2).any(|p| p[0].config != recs[0].config));
    let res = results(&dir);
    assert_eq!(res["status"], "finished");
    assert_eq!(res["games"], 40);
    let st = res["standings"].as_array().expect("standings");
    let (a, b) = (&st[0], &st[1]);
    assert_eq!(a["games"], 40);
    assert_eq!(a["wins"], b["losses"]);
    assert_eq!(a["ties"], b["ties"]);
    let total = a["score"].as_f64().expect("score") + b["score"].as_f64().expect("score");
    assert_eq!(total, 40.0);
    assert_eq!(a["elo"], 0.0);
    assert_eq!(res["pairings"][0][1]["name"], "greedy");
    assert_eq!(res["pairings"][0][1]["score"], b["score"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_pentanomial_line_is_printed_for_two_bots_only() {
    let dir = temp_dir("tournament-pentanomial");
    let (two, three) = (dir.join("two"), dir.join("three"));
    let (ok, stdout, stderr) = run("--bot random --bot greedy --games 10 --out", &[&two]);
    assert!(ok, "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("pentanomial random vs greedy: pairs ["))
        .unwrap_or_else(|| panic!("no pentanomial line: {stdout}"));
    assert!(
        line.contains(", elo ") && line.contains(", nelo ") && line.contains(", los "),
        "{line}"
    );
    // The trinomial table stays.
    assert!(stdout.contains("±95%") && stdout.contains("elo is relative to random"));
    let p = &results(&two)["pentanomial"];
    assert_eq!(p["pairs"], 5);
    let counts: Vec<u64> = p["counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| c.as_u64().expect("a count"))
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 5);
    let shown = format!(
        "pairs [{}]",
        counts
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(line.contains(&shown), "{line} vs {shown}");
    for key in ["elo", "elo_error", "nelo", "nelo_error", "los"] {
        assert!(p.get(key).is_some(), "{key} missing: {p}");
    }
    let flags = "--bot random --bot greedy --bot level:1 --players 3 --rounds 1 --out";
    let (ok, stdout, stderr) = run(flags, &[&three]);
    assert!(ok, "{stderr}");
    assert!(!stdout.contains("pentanomial"), "{stdout}");
    assert!(results(&three)["pentanomial"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fixed_flags_and_openings_fix_the_configurations() {
    let dir = temp_dir("tournament-fixed");
    let flags = "--bot random --bot greedy --bot level:1 --players 3 --size 5x6 --eat 1x2 \
                 --rounds 2 --out";
    let (ok, _, stderr) = run(flags, &[&dir]);
    assert!(ok, "{stderr}");
    let recs = records(&dir);
    // One group of three bots, three rotations, two rounds.
    assert_eq!(recs.len(), 6);
    for r in &recs {
        assert_eq!(
            (r.config.rows, r.config.cols, r.config.eat),
            (5, 6, Some([1, 2]))
        );
        assert_eq!(r.config.players, 3);
    }
    assert_eq!(recs[1].seats, ["greedy", "level:1", "random"]);

    let openings = dir.join("openings.jsonl");
    std::fs::write(
        &openings,
        "{\"rows\":4,\"cols\":5,\"eat\":[1,1],\"poison\":[[0,0]]}\n\
         {\"rows\":6,\"cols\":4,\"eat\":[2,1],\"poison\":[[5,3],[0,0]]}\n",
    )
    .expect("write openings");
    let out = dir.join("from-openings");
    let flags = "--bot random --bot greedy --rounds 3 --out";
    let (ok, _, stderr) = run(flags, &[&out, Path::new("--openings"), &openings]);
    assert!(ok, "{stderr}");
    let rows: Vec<i64> = records(&out).iter().map(|r| r.config.rows).collect();
    assert_eq!(rows, [4, 4, 6, 6, 4, 4]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let dir = temp_dir("tournament-determinism");
    let mut outputs = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.join(threads);
        let flags = format!(
            "--bot search:depth=2 --bot search:nodes=300 --bot greedy --games 60 --seed 7 \
             --concurrency {threads} --out"
        );
        let (ok, _, stderr) = run(&flags, &[&out]);
        assert!(ok, "{stderr}");
        outputs.push((read(&out, "games.jsonl"), read(&out, "results.json")));
    }
    assert_eq!(outputs[0], outputs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resume_after_a_hard_stop_gives_the_uninterrupted_results() {
    let dir = temp_dir("tournament-resume");
    let (full, cut) = (dir.join("full"), dir.join("cut"));
    let flags = "--bot random --bot greedy --games 30 --sprt elo0=-10,elo1=10 --out";
    for out in [&full, &cut] {
        let (ok, _, stderr) = run(flags, &[out]);
        assert!(ok, "{stderr}");
    }
    // Simulate a hard stop: 11 whole lines and half of the 12th remain; no results.json.
    let text = read(&cut, "games.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 30, "the SPRT must not decide this early");
    let mut kept: String = lines[..11].iter().map(|l| format!("{l}\n")).collect();
    kept.push_str(&lines[11][..lines[11].len() / 2]);
    std::fs::write(cut.join("games.jsonl"), kept).expect("truncate");
    std::fs::remove_file(cut.join("results.json")).expect("remove results");
    let (ok, stdout, stderr) = run("--resume", &[&cut]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("19 games played"), "{stdout}");
    assert_eq!(read(&full, "games.jsonl"), read(&cut, "games.jsonl"));
    assert_eq!(read(&full, "results.json"), read(&cut, "results.json"));
    // The pair cut in two by the stop is counted once, after the resume.
    assert_eq!(results(&cut)["pentanomial"]["pairs"], 15);
    // Resuming a finished tournament plays nothing more.
    let (ok, stdout, _) = run("--resume", &[&cut]);
    assert!(ok && stdout.contains("0 games played"), "{stdout}");
    assert_eq!(read(&full, "games.jsonl"), read(&cut, "games.jsonl"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sprt_stops_a_lopsided_match() {
    let dir = temp_dir("tournament-sprt");
    let flags = "--bot search:depth=4 --bot random --size 8x8 --eat 2x2 \
                 --sprt elo0=0,elo1=100,alpha=0.05,beta=0.05 --games 2000 --out";
    let (ok, stdout, stderr) = run(flags, &[&dir]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(stdout.contains("on the pentanomial model: llr"), "{stdout}");
    let res = results(&dir);
    assert_eq!(res["status"], "decided");
    assert_eq!(res["sprt"]["model"], "pentanomial");
    assert_eq!(res["sprt"]["pentanomial"], res["pentanomial"]["counts"]);
    assert_eq!(res["sprt"]["verdict"], "H1");
    let llr = res["sprt"]["llr"].as_f64().expect("llr");
    assert!(llr >= res["sprt"]["upper"].as_f64().expect("upper"));
    let games = res["games"].as_u64().expect("games");
    assert!(games < 2000 && games.is_multiple_of(2), "{games}");
    assert_eq!(records(&dir).len() as u64, games);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_are_refused_with_a_reason() {
    for (flags, reason) in [
        ("--bot random", "at least two bots"),
        ("--bot random --bot nonsense", "valid forms"),
        ("--bot random --bot greedy --players 3", "at least 3 bots"),
        (
            "--bot random --bot greedy --bot level:1 --sprt elo1=5",
            "exactly two bots",
        ),
        (
            "--bot random --bot greedy --size 3x5",
            "rows must be 4–15, got 3",
        ),
        (
            "--resume somewhere --bot random",
            "--resume takes the settings",
        ),
    ] {
        let (ok, _, stderr) = run(flags, &[]);
        assert!(!ok && stderr.contains(reason), "{flags}: {stderr}");
    }
    let dir = temp_dir("tournament-twice");
    let flags = "--bot random --bot greedy --games 2 --out";
    assert!(run(flags, &[&dir]).0);
    let (ok, _, stderr) = run(flags, &[&dir]);
    assert!(!ok && stderr.contains("--resume"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_after_writing_what_is_done() {
    let dir = temp_dir("tournament-interrupt");
    let child = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(
            "tournament --quiet --bot search:depth=3 --bot greedy --size 8x8 --eat 2x2".split(' '),
        )
        .args(["--games", "1000000", "--out"])
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts jchomp-bot");
    // Wait for the first games to reach the file, then press Ctrl-C.
    let games = dir.join("games.jsonl");
    for _ in 0..600 {
        if std::fs::metadata(&games).is_ok_and(|m| m.len() > 0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("runs kill");
    assert!(sent.success());
    let out = child.wait_with_output().expect("jchomp-bot ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("interrupted; continue with"), "{stdout}");
    let res = results(&dir);
    assert_eq!(res["status"], "interrupted");
    let recs = records(&dir);
    assert!(!recs.is_empty());
    assert_eq!(res["games"], recs.len());
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.id.as_deref(), Some(i.to_string().as_str()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gauntlet_seats_the_first_bot_in_every_game() {
    let dir = temp_dir("tournament-gauntlet");
    let flags = "--bot random --bot greedy --bot level:1 --bot random --gauntlet --players 3 \
                 --rounds 2 --out";
    let (ok, stdout, stderr) = run(flags, &[&dir]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("random#2"), "{stdout}");
    let recs = records(&dir);
    // The first bot with each pair of the three others: 3 groups × 3 rotations × 2 rounds.
    assert_eq!(recs.len(), 18);
    for r in &recs {
        assert!(r.seats.iter().any(|s| s == "random"), "{:?}", r.seats);
    }
    let res = results(&dir);
    let pairings = res["pairings"].as_array().expect("pairings");
    assert_eq!(pairings.len(), 3);
    assert_eq!(res["standings"][0]["games"], 18);
    assert_eq!(res["standings"][1]["games"], 12);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rule_options_reach_every_game_its_record_and_resume() {
    let dir = temp_dir("tournament-options");
    let drawn = dir.join("drawn");
    let flags = "--bot random --bot greedy --bot level:1 --variant breaks --play normal \
                 --no-square-bites --rounds 3 --out";
    let (ok, stdout, stderr) = run(flags, &[&drawn]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("18 games played"), "{stdout}");
    let recs = records(&drawn);
    assert_eq!(recs.len(), 18);
    for r in &recs {
        let c = &r.config;
        assert_eq!(c.variant, jchomp_rules::Variant::Breaks, "{c:?}");
        assert_eq!(
            (c.play, c.no_square_bites),
            (jchomp_rules::Play::Normal, true)
        );
        assert_eq!((c.eat, c.poison.len()), (None, 1), "{c:?}");
        // The game replays under its options and ends as normal play ends: someone ate poison
        // and won, unless no bite was left.
        let game = r.replay().expect("replays");
        let result = game.result().expect("finished");
        assert!(
            matches!(
                result,
                jchomp_rules::GameResult::Won { .. } | jchomp_rules::GameResult::Tie
            ),
            "{result:?}"
        );
    }
    let settings = read(&drawn, "tournament.json");
    assert!(
        settings.contains("\"variant\": \"breaks\"") && settings.contains("\"play\": \"normal\""),
        "{settings}"
    );
    // Resuming a cut tournament keeps the options: the same games again.
    let full = read(&drawn, "games.jsonl");
    let kept: String = full.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(drawn.join("games.jsonl"), kept).expect("truncate");
    let (ok, _, stderr) = run("--resume", &[&drawn]);
    assert!(ok, "{stderr}");
    assert_eq!(read(&drawn, "games.jsonl"), full);

    // Openings take the flags' options; one they make invalid is refused with its line.
    let openings = dir.join("openings.jsonl");
    std::fs::write(
        &openings,
        "{\"rows\":5,\"cols\":6,\"eat\":[1,2],\"poison\":[[0,0]]}\n\
         {\"rows\":4,\"cols\":4,\"variant\":\"classic\",\"poison\":[[0,0]]}\n",
    )
    .expect("write openings");
    let out = dir.join("openings");
    let flags = "--bot random --bot greedy --no-square-bites --rounds 2 --out";
    let (ok, _, stderr) = run(flags, &[&out, Path::new("--openings"), &openings]);
    assert!(ok, "{stderr}");
    let recs = records(&out);
    assert!(recs.iter().all(|r| r.config.no_square_bites), "{recs:?}");
    assert_eq!(recs[2].config.variant, jchomp_rules::Variant::Classic);
    std::fs::write(
        &openings,
        "{\"rows\":5,\"cols\":6,\"eat\":[2,2],\"poison\":[[0,0]]}\n",
    )
    .expect("write openings");
    let flags = "--bot random --bot greedy --no-square-bites --rounds 2";
    let (ok, _, stderr) = run(flags, &[Path::new("--openings"), &openings]);
    assert!(!ok);
    assert!(
        stderr.contains("openings line 1:") && stderr.contains("square"),
        "{stderr}"
    );
    // Fixed flags the options refuse are refused before any game.
    let (ok, _, stderr) = run(
        "--bot random --bot greedy --eat 2x2 --no-square-bites --rounds 1",
        &[],
    );
    assert!(!ok && stderr.contains("square"), "{stderr}");
    let (ok, _, stderr) = run(
        "--bot random --bot greedy --variant breaks --poison 0,0 --poison 1,1 --rounds 1",
        &[],
    );
    assert!(!ok && stderr.contains("exactly one"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
