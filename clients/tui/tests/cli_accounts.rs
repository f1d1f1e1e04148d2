//! Accounts and ratings from the command line against a real server started in this test on
//! 127.0.0.1:0: `jchomp register`, `login` and `logout` with the session file they keep (mode
//! 0600), `jchomp player` and `jchomp leaderboard` after rated games played through the
//! protocol, `jchomp create --rated` without a login, and bad passwords and bad answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, jchomp_input, recv_until, stderr, stdout};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, RoomStatus, ServerMessage};
use jchomp_testkit::temp::TempDir;
use jchomp_tui::cli::CreateArgs;
use jchomp_tui::connection::{Connection, ServerError};
use std::path::{Path, PathBuf};
use std::process::Output;

const PASSWORD: &str = "correct horse";

/// A user of `jchomp`: their own state directory, on one server.
struct User {
    state: TempDir,
    url: String,
}

impl User {
    fn new(server: &TestServer) -> User {
        User {
            state: TempDir::new("accounts-state"),
            url: server.url(),
        }
    }

    /// Runs `jchomp --server URL ARGS…` as this user, with `JCHOMP_PASSWORD` if `password`.
    async fn run(&self, args: &[&str], password: Option<&str>) -> Output {
        self.run_input(args, password, None).await
    }

    async fn run_input(
        &self,
        args: &[&str],
        password: Option<&str>,
        input: Option<&str>,
    ) -> Output {
        let mut all = vec!["--server", &self.url];
        all.extend_from_slice(args);
        let state = self.state.path().to_str().unwrap();
        let mut env = vec![("XDG_STATE_HOME", state)];
        if let Some(p) = password {
            env.push(("JCHOMP_PASSWORD", p));
        }
        jchomp_input(&all, &env, input).await
    }

    fn session_file(&self) -> PathBuf {
        self.state.path().join("jchomp/session.json")
    }

    /// The session token kept for the server.
    fn token(&self) -> String {
        let text = std::fs::read_to_string(self.session_file()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let session = &v["sessions"][0];
        assert_eq!(session["server"], self.url.as_str(), "{v}");
        session["token"].as_str().unwrap().to_owned()
    }
}

fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

fn failed(out: &Output, code: i32) -> String {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    stderr(out)
}

#[cfg(unix)]
fn assert_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{} has mode {mode:o}", path.display());
}

#[cfg(not(unix))]
fn assert_private(path: &Path) {
    assert!(path.is_file());
}

/// A connection logged in with `token`; the account's name.
async fn authenticated(url: &str, token: &str) -> (Connection, Result<String, ServerError>) {
    let mut conn = Connection::connect(url).await.unwrap();
    let msg = ClientMessage::Authenticate {
        token: token.to_owned(),
    };
    let answer = conn
        .request(&msg, |m| match m {
            ServerMessage::Account { name, .. } => Some(name),
            _ => None,
        })
        .await
        .unwrap();
    (conn, answer)
}

/// A rated 4×4 room's configuration, as `jchomp create --rated` sends it.
fn rated_config() -> ConfigJson {
    let args = CreateArgs::parse_form("--size 4x4 --rated").unwrap();
    let config = args.config_json().unwrap();
    assert!(config.rated);
    config
}

/// Creates a rated room on `conn`; its id.
async fn create_rated(conn: &mut Connection) -> String {
    let msg = ClientMessage::CreateRoom {
        name: "ignored".into(),
        config: rated_config(),
        bots: None,
    };
    conn.request(&msg, |m| match m {
        ServerMessage::Joined { room, .. } => Some(room),
        _ => None,
    })
    .await
    .unwrap()
    .unwrap()
}

/// Waits for the game in the room to be under way (seat 0 to move).
async fn until_playing(conn: &mut Connection) {
    recv_until(conn, |m| match m {
        ServerMessage::Room(s) if s.status == RoomStatus::Playing => Some(()),
        _ => None,
    })
    .await;
}

/// Waits for the game to end.
async fn until_finished(conn: &mut Connection) {
    recv_until(conn, |m| match m {
        ServerMessage::Moved(m) if m.status == RoomStatus::Finished => Some(()),
        ServerMessage::Room(s) if s.status == RoomStatus::Finished => Some(()),
        _ => None,
    })
    .await;
}

fn eat(row: i64, col: i64) -> ClientMessage {
    ClientMessage::Move { row, col }
}

#[tokio::test]
async fn register_login_rated_game_profile_and_logout() {
    let server = TestServer::start().await;
    let ann = User::new(&server);

    // No session yet: a rated room is refused before anything is sent.
    let out = ann
        .run(&["create", "--rated", "--bot", "level:1"], None)
        .await;
    let err = failed(&out, 2);
    assert!(
        err.contains("a rated room is for players with accounts"),
        "{err}"
    );
    assert!(err.contains("jchomp --server"), "{err}");

    let out = ann.run(&["register", "Ann"], Some(PASSWORD)).await;
    let text = succeeded(&out);
    assert!(text.starts_with("Registered as Ann until "), "{text}");
    assert_private(&ann.session_file());
    let first = ann.token();

    // Registering the name again is refused in words.
    let other = User::new(&server);
    let err = failed(&other.run(&["register", "ann"], Some(PASSWORD)).await, 1);
    assert!(err.contains("That name is taken"), "{err}");
    assert!(!other.session_file().exists());

    // Logging in again (the password on standard input, as a script gives it) keeps a new
    // session in place of the old one.
    let out = ann
        .run_input(&["login", "ann"], None, Some(&format!("{PASSWORD}\n")))
        .await;
    let text = succeeded(&out);
    assert!(text.starts_with("Logged in as Ann until "), "{text}");
    assert_private(&ann.session_file());
    let token = ann.token();
    assert_ne!(token, first);

    // A rated game against the built-in level 1, through the protocol with the kept token:
    // Ann eats the poison at once and loses.
    let (mut conn, name) = authenticated(&ann.url, &token).await;
    assert_eq!(name.unwrap(), "Ann");
    let room = create_rated(&mut conn).await;
    let add = ClientMessage::AddBot {
        bot: Some("level:1".into()),
        seat: None,
    };
    conn.send(&add).await.unwrap();
    until_playing(&mut conn).await;
    conn.send(&eat(0, 0)).await.unwrap();
    until_finished(&mut conn).await;
    conn.close().await;

    let text = succeeded(&ann.run(&["player", "ann"], None).await);
    assert!(text.starts_with("Ann\nCATEGORY  RATING  ±"), "{text}");
    // Glicko-2 from 1500 ± 500 after one loss to an equal: 1258 ± 397, provisional.
    assert!(text.contains("jchomp:2  1258?   397  0  1  0  "), "{text}");
    assert!(text.contains("? provisional"), "{text}");
    assert!(
        text.contains("Recent rated games (newest first):"),
        "{text}"
    );
    assert!(text.contains(&format!("{room}  ")), "{text}");
    assert!(text.contains("jchomp:2  loss     1258"), "{text}");
    let json = succeeded(&ann.run(&["player", "Ann", "--json"], None).await);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ratings"][0]["losses"], 1, "{v}");

    let text = succeeded(&ann.run(&["player", "level:1"], None).await);
    assert!(text.starts_with("level:1 [bot]\n"), "{text}");
    assert!(text.contains("jchomp:2  1742?   397  1  0  0  "), "{text}");

    let err = failed(&ann.run(&["player", "nobody"], None).await, 1);
    assert!(
        err.contains("no account is named \"nobody\" (the server answered 404)"),
        "{err}"
    );

    // Everyone is still provisional: the boards say why they are empty.
    let text = succeeded(&ann.run(&["leaderboard"], None).await);
    assert!(text.contains("Nobody yet"), "{text}");

    // Logging out revokes the session on the server and removes the file.
    let text = succeeded(&ann.run(&["logout"], None).await);
    assert_eq!(text, "Logged out Ann (1 session ended).\n");
    assert!(!ann.session_file().exists());
    let (_conn, refused) = authenticated(&ann.url, &token).await;
    assert_eq!(refused.unwrap_err().code, ErrorCode::BadToken);
    let text = succeeded(&ann.run(&["logout"], None).await);
    assert_eq!(text, "Not logged in on this server.\n");
}

#[tokio::test]
async fn a_bad_password_is_refused_in_words_and_keeps_nothing() {
    let server = TestServer::start().await;
    let ann = User::new(&server);
    succeeded(&ann.run(&["register", "ann"], Some(PASSWORD)).await);
    let kept = ann.token();

    let bob = User::new(&server);
    let err = failed(&bob.run(&["login", "ann"], Some("wrong horse")).await, 1);
    assert_eq!(
        err,
        "jchomp: Wrong name or password: wrong name or password\n"
    );
    assert!(!bob.session_file().exists());
    // A failed login leaves the session kept by an earlier one alone.
    let err = failed(&ann.run(&["login", "ann"], Some("wrong horse")).await, 1);
    assert!(err.contains("Wrong name or password"), "{err}");
    assert_eq!(ann.token(), kept);
    // No password at all.
    let err = failed(&bob.run_input(&["login", "ann"], None, Some("\n")).await, 1);
    assert!(err.contains("no password given"), "{err}");
}

#[tokio::test]
async fn a_session_that_ended_elsewhere_is_forgotten_with_a_message() {
    let server = TestServer::start().await;
    let ann = User::new(&server);
    succeeded(&ann.run(&["register", "ann"], Some(PASSWORD)).await);
    let laptop = User::new(&server);
    succeeded(&laptop.run(&["login", "ann"], Some(PASSWORD)).await);

    // Logging out everywhere ends the laptop's session too.
    let text = succeeded(&ann.run(&["logout", "--everywhere"], None).await);
    assert_eq!(text, "Logged out ann (2 sessions ended).\n");
    let (_conn, refused) = authenticated(&laptop.url, &laptop.token()).await;
    assert_eq!(refused.unwrap_err().code, ErrorCode::BadToken);

    let text = succeeded(&laptop.run(&["logout"], None).await);
    assert_eq!(
        text,
        "The session of ann had already ended; it is forgotten.\n"
    );
    assert!(!laptop.session_file().exists());
}

/// Ann and Bob play rated games in one room, losing in turn, until both ratings are settled
/// (Glicko-2 needs some 17 such games to bring the deviation under 110).
#[tokio::test]
async fn the_leaderboard_lists_settled_ratings_best_first() {
    let server = TestServer::start().await;
    let ann = User::new(&server);
    let bob = User::new(&server);
    succeeded(&ann.run(&["register", "ann"], Some(PASSWORD)).await);
    succeeded(&bob.run(&["register", "bob"], Some(PASSWORD)).await);
    let (mut a, _) = authenticated(&ann.url, &ann.token()).await;
    let (mut b, _) = authenticated(&bob.url, &bob.token()).await;
    let room = create_rated(&mut a).await;
    let join = ClientMessage::JoinRoom {
        room,
        name: "ignored".into(),
        seat: None,
    };
    b.send(&join).await.unwrap();
    until_playing(&mut a).await;
    until_playing(&mut b).await;

    let mut games = 0;
    loop {
        games += 1;
        if games % 2 == 1 {
            a.send(&eat(0, 0)).await.unwrap();
        } else {
            a.send(&eat(3, 3)).await.unwrap();
            recv_until(&mut b, |m| match m {
                ServerMessage::Moved(m) if m.seat == 0 => Some(()),
                _ => None,
            })
            .await;
            b.send(&eat(0, 0)).await.unwrap();
        }
        until_finished(&mut a).await;
        until_finished(&mut b).await;
        // Stopping after a game Ann lost leaves her one loss behind Bob.
        if games % 2 == 1 {
            let (_, body) = server.http_get("/api/players/bob").await;
            let profile: serde_json::Value = serde_json::from_str(&body).unwrap();
            if profile["ratings"][0]["provisional"] == false {
                break;
            }
            assert!(
                games < 40,
                "still provisional after {games} games: {profile}"
            );
        }
        a.send(&ClientMessage::Rematch).await.unwrap();
        b.send(&ClientMessage::Rematch).await.unwrap();
        until_playing(&mut a).await;
        until_playing(&mut b).await;
    }

    // Ann lost one game more than Bob: Bob is first.
    let text = succeeded(
        &ann.run(&["leaderboard", "--category", "jchomp:2"], None)
            .await,
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "jchomp:2 leaderboard, people with a rated game in the last 30 days:"
    );
    assert!(lines[1].starts_with("RANK  PLAYER  RATING  ±"), "{text}");
    // Rank, name, rating, deviation, wins, losses, ties, the day and the minute.
    let row = |i: usize| lines[i].split_whitespace().collect::<Vec<_>>();
    let (bob_wins, ann_wins) = ((games + 1) / 2, games / 2);
    let (first, second) = (row(2), row(3));
    assert_eq!(first[..2], ["1", "bob"], "{text}");
    assert_eq!(second[..2], ["2", "ann"], "{text}");
    let rating = |r: &[&str]| r[2].parse::<u32>().unwrap();
    assert!(rating(&first) > 1500 && rating(&second) < 1500, "{text}");
    assert!(first[3].parse::<u32>().unwrap() < 110, "{text}");
    let wins = bob_wins.to_string();
    let losses = ann_wins.to_string();
    assert_eq!(first[4..7], [wins.as_str(), losses.as_str(), "0"], "{text}");
    assert_eq!(
        second[4..7],
        [losses.as_str(), wins.as_str(), "0"],
        "{text}"
    );
    assert_eq!(lines.len(), 4, "{text}");

    let json = succeeded(
        &ann.run(&["leaderboard", "--json", "--days", "7"], None)
            .await,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["days"].as_u64(), v["players"][0]["name"].as_str()),
        (Some(7), Some("bob"))
    );

    // Bots have their own board; people are not on it.
    let text = succeeded(&ann.run(&["leaderboard", "--bots"], None).await);
    assert!(text.starts_with("jchomp:2 leaderboard, bots"), "{text}");
    assert!(text.contains("Nobody yet"), "{text}");

    // A request the server refuses is an error with its words.
    let err = failed(&ann.run(&["leaderboard", "--days", "0"], None).await, 1);
    assert!(
        err.contains("days must be 1–3650, got \"0\" (the server answered 400)"),
        "{err}"
    );
}
