//! Runs `jchomp-bot tournament` with external engines: small Python engines written here, one
//! good and many that misbehave in every way docs/ENGINE.md names. Each misbehaviour becomes
//! its game's result and reason, the tournament finishes, no engine process is left behind, and
//! `--resume` after a `kill -9` of the runner finishes the same games.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::expect_used)]

use jchomp_protocol::record::Record;
use jchomp_testkit::temp::temp_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The engine every script starts from: the handshake, `isready`, and classic Chomp moves (a
/// seeded random uneaten cell, poison last). `BEHAVIOUR` decides what it does on `go`.
const ENGINE: &str = r#"
import os, random, sys, time, json
BEHAVIOUR = sys.argv[1]
PIDS = sys.argv[2]
with open(PIDS, "a") as f:
    f.write("%d\n" % os.getpid())
rng = random.Random(0)
state = {"config": None, "moves": [], "turns": 0}

def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

def choose():
    c = state["config"]
    eaten = set()
    for (r, k) in state["moves"]:
        for i in range(r, c["rows"]):
            for j in range(k, c["cols"]):
                eaten.add((i, j))
    poison = set(tuple(p) for p in c["poison"])
    free = [(i, j) for i in range(c["rows"]) for j in range(c["cols"]) if (i, j) not in eaten]
    safe = [x for x in free if x not in poison]
    return rng.choice(safe or free)

def go():
    state["turns"] += 1
    if BEHAVIOUR == "crash" and state["turns"] == 2:
        sys.exit(3)
    if BEHAVIOUR == "garbage":
        for _ in range(5):
            say("\x01\x02 garbage { ]")
        return say("bestmove banana")
    if BEHAVIOUR == "illegal" and state["moves"]:
        r, k = state["moves"][0]
        return say("bestmove %d,%d" % (r, k))
    if BEHAVIOUR == "outofrange":
        return say("bestmove 99,99")
    if BEHAVIOUR == "late":
        time.sleep(0.6)
    if BEHAVIOUR == "megabyte":
        say("info string " + "x" * (1 << 20))
    if BEHAVIOUR == "endless":
        while True:
            say("info string endless")
    if BEHAVIOUR == "slow":
        time.sleep(0.02)
    r, k = choose()
    say("bestmove %d,%d" % (r, k))

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "jep":
        if BEHAVIOUR == "silent":
            continue
        say("id name test-" + BEHAVIOUR)
        say("option name Seed type spin default 0 min 0 max 2147483647")
        say("variants classic")
        say("players 2 3")
        say("jepok")
    elif words[0] == "setoption" and words[2] == "Seed":
        rng = random.Random(int(words[4]))
    elif words[0] == "isready":
        if BEHAVIOUR != "hang":
            say("readyok")
    elif words[0] == "position":
        rest = line.split(" ", 2)[2]
        text, _, moves = rest.partition(" moves ")
        state["config"] = json.loads(text)
        state["moves"] = [tuple(int(x) for x in m.split(",")) for m in moves.split()]
    elif words[0] == "go":
        go()
    elif words[0] == "quit":
        if BEHAVIOUR != "ignorequit":
            sys.exit(0)
while BEHAVIOUR == "ignorequit":
    time.sleep(1)
"#;

/// The directory of one test's engines: the script and the file their process ids go to.
struct Engines {
    dir: PathBuf,
}

impl Engines {
    fn new(name: &str) -> Engines {
        let python = Command::new("python3").arg("--version").output();
        assert!(
            python.is_ok_and(|o| o.status.success()),
            "these tests need python3 on PATH"
        );
        let dir = temp_dir(name);
        std::fs::write(dir.join("engine.py"), ENGINE).expect("writes the engine");
        Engines { dir }
    }

    /// The `--engine` value of an engine named `name` behaving as `behaviour`.
    fn spec(&self, name: &str, behaviour: &str) -> String {
        format!(
            "name={name},cmd=python3,dir={},arg=engine.py,arg={behaviour},arg=pids.txt",
            self.dir.display()
        )
    }

    /// Every engine process id written so far.
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.dir.join("pids.txt"))
            .unwrap_or_default()
            .lines()
            .map(|l| l.parse().expect("a pid"))
            .collect()
    }
}

fn tournament(args: &[String]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"));
    c.arg("tournament").arg("--quiet").args(args);
    c
}

fn run(args: &[String]) -> Output {
    tournament(args).output().expect("runs jchomp-bot")
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

fn records(dir: &Path) -> Vec<Record> {
    std::fs::read_to_string(dir.join("games.jsonl"))
        .expect("games.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record per line"))
        .collect()
}

fn results(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("JSON")
}

/// Whether process `pid` still exists (a zombie counts).
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn every_misbehaviour_is_a_result_and_the_tournament_finishes() {
    let engines = Engines::new("engines-misbehave");
    let out = engines.dir.join("out");
    // What each engine does, and the failure it costs it in each of its games.
    let cases = [
        ("crash", Some("crash")),
        ("hang", Some("hung")),
        ("silent", Some("handshake")),
        ("garbage", Some("malformed")),
        ("illegal", Some("illegal")),
        ("outofrange", Some("illegal")),
        ("late", Some("overtime")),
        ("megabyte", Some("flood")),
        ("endless", Some("flood")),
        ("ignorequit", None),
    ];
    let mut args = words(
        "--gauntlet --bot random --variant classic --size 4x5 --poison 0,0 --rounds 1 \
         --st 200ms --concurrency 4 --seed 3 --out",
    );
    args.push(out.display().to_string());
    for (behaviour, _) in cases {
        args.push("--engine".into());
        args.push(engines.spec(behaviour, behaviour));
    }
    args.push("--engine".into());
    args.push("name=missing,cmd=./no-such-engine".into());
    let started = Instant::now();
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stderr}\n{stdout}");
    assert!(started.elapsed() < Duration::from_secs(120));
    assert!(stdout.contains("engine failures:"), "{stdout}");
    let records = records(&out);
    assert_eq!(records.len(), 2 * (cases.len() + 1));
    let standings = results(&out)["standings"].clone();
    let expected = cases
        .iter()
        .copied()
        .chain(std::iter::once(("missing", Some("start"))));
    for (behaviour, failure) in expected {
        let games: Vec<&Record> = records
            .iter()
            .filter(|r| r.seats.iter().any(|s| s == behaviour))
            .collect();
        assert_eq!(games.len(), 2, "{behaviour}");
        for game in games {
            let seat = game
                .seats
                .iter()
                .position(|s| s == behaviour)
                .expect("seated");
            let result = serde_json::to_value(game.result).expect("JSON");
            match failure {
                None => assert_eq!(game.failure, None, "{behaviour}: {game:?}"),
                Some(name) => {
                    assert_eq!(game.failure.as_deref(), Some(name), "{behaviour}: {game:?}");
                    assert_eq!(result["loser"], seat, "{behaviour}: {result}");
                    let kind = if matches!(name, "overtime" | "hung") {
                        "timeout"
                    } else {
                        "abandoned"
                    };
                    assert_eq!(result["kind"], kind, "{behaviour}: {result}");
                    assert!(
                        !game.failure_lines.is_empty(),
                        "{behaviour}: {:?}",
                        game.failure_lines
                    );
                }
            }
        }
        let line = standings
            .as_array()
            .expect("standings")
            .iter()
            .find(|s| s["name"] == behaviour)
            .expect("a standings line");
        if let Some(name) = failure {
            assert_eq!(line["failures"][name], 2, "{behaviour}: {line}");
            assert_eq!(line["losses"], 2, "{behaviour}: {line}");
        }
    }
    // The last lines show what the engine was sent and what it answered.
    let late = records
        .iter()
        .find(|r| r.failure.as_deref() == Some("malformed"))
        .expect("malformed");
    assert!(
        late.failure_lines.iter().any(|l| l == "< bestmove banana"),
        "{:?}",
        late.failure_lines
    );
    // Every engine process ended and was waited for, the one that ignores quit included.
    let pids = engines.pids();
    assert!(pids.len() >= 2 * cases.len(), "{pids:?}");
    for pid in pids {
        assert!(!alive(pid), "engine process {pid} is left");
    }
}

#[test]
fn a_good_engine_plays_three_player_games_with_bots_and_replays() {
    let engines = Engines::new("engines-three");
    let run_once = |out: &Path| {
        let mut args = vec!["--engine".to_string(), engines.spec("good", "good")];
        args.extend(words(
            "--bot random --bot greedy --players 3 --variant classic --games 12 --tc 5s+50ms \
             --concurrency 2 --out",
        ));
        args.push(out.display().to_string());
        let output = run(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        records(out)
    };
    let first = run_once(&engines.dir.join("a"));
    assert_eq!(first.len(), 12);
    for r in &first {
        assert_eq!(r.failure, None, "{r:?}");
        assert!(r.seats.contains(&"good".to_string()));
        r.replay().expect("replays");
    }
    let results = results(&engines.dir.join("a"));
    assert_eq!(results["status"], "finished");
    // The engine, given first, is the reference for Elo.
    assert_eq!(results["standings"][0]["name"], "good");
    // Its Seed is set per game and seat: a second run plays the same moves.
    assert_eq!(run_once(&engines.dir.join("b")), first);
}

#[test]
fn an_engine_that_does_not_play_the_variant_is_refused_before_any_game() {
    let engines = Engines::new("engines-refused");
    let mut args = vec!["--engine".to_string(), engines.spec("good", "good")];
    args.extend(words("--bot random --games 2 --st 100ms"));
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("engine good: it does not play jchomp"),
        "{stderr}"
    );
    // It plays classic Chomp, but declares no rule option: not under the ban on square bites.
    let mut args = vec!["--engine".to_string(), engines.spec("good", "good")];
    args.extend(words(
        "--bot random --games 2 --st 100ms --variant classic --no-square-bites",
    ));
    let stderr = String::from_utf8_lossy(&run(&args).stderr).into_owned();
    assert!(
        stderr.contains(
            "engine good: it does not play classic under rules no-square-bites with 2 players \
             (it says: variants classic; rules none; players 2 3)"
        ),
        "{stderr}"
    );
    let mut args = vec![
        "--engine".to_string(),
        engines.spec("good", "good") + ",option.Depth=3",
    ];
    args.extend(words("--bot random --games 2 --st 100ms --variant classic"));
    let stderr = String::from_utf8_lossy(&run(&args).stderr).into_owned();
    assert!(stderr.contains("no option \"Depth\""), "{stderr}");
    let args = words("--bot random --bot greedy --engine name=e,cmd=x --games 2");
    let stderr = String::from_utf8_lossy(&run(&args).stderr).into_owned();
    assert!(stderr.contains("--tc"), "{stderr}");
}

#[test]
fn resume_after_kill_9_finishes_the_same_games_with_engines() {
    let engines = Engines::new("engines-resume");
    let args = |out: &Path| {
        let mut a = words(
            "--bot random --variant classic --size 6x6 --games 60 --st 500ms --concurrency 1 --out",
        );
        a.push(out.display().to_string());
        a.push("--engine".into());
        a.push(engines.spec("slow", "slow"));
        a
    };
    let whole = engines.dir.join("whole");
    assert!(run(&args(&whole)).status.success());
    let cut = engines.dir.join("cut");
    let mut child = tournament(&args(&cut)).spawn().expect("starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(cut.join("games.jsonl")).map_or(0, |t| t.lines().count()) < 3 {
        assert!(Instant::now() < deadline, "no game written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .expect("runs kill");
    assert!(killed.success());
    let _ = child.wait();
    let done = records(&cut).len();
    assert!(done < 60, "the tournament ended before it was killed");
    let output = run(&words(&format!("--resume {}", cut.display())));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(records(&cut), records(&whole));
}

#[test]
fn an_engine_is_kept_from_game_to_game_and_started_again_after_a_failure() {
    let engines = Engines::new("engines-kept");
    let play = |behaviour: &str, games: u64, concurrency: u64| {
        let out = engines.dir.join(behaviour);
        let mut args = words(&format!(
            "--bot random --variant classic --size 4x5 --poison 0,0 --st 200ms --games {games} \
             --concurrency {concurrency} --out"
        ));
        args.push(out.display().to_string());
        args.push("--engine".into());
        args.push(engines.spec(behaviour, behaviour));
        let output = run(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        records(&out)
    };
    // One process for the check, then one per worker for all of its games.
    let good = play("good", 40, 2);
    assert_eq!(good.len(), 40);
    assert!(good.iter().all(|r| r.failure.is_none()));
    let pids = engines.pids();
    assert!(pids.len() <= 3, "a process per game: {pids:?}");
    // Every game of this engine ends in an illegal answer, and the next starts it again.
    let illegal = play("illegal", 4, 1);
    assert!(
        illegal
            .iter()
            .all(|r| r.failure.as_deref() == Some("illegal"))
    );
    let all = engines.pids();
    assert_eq!(all.len() - pids.len(), 1 + 4, "{all:?}");
    for pid in all {
        assert!(!alive(pid), "engine process {pid} is left");
    }
}
