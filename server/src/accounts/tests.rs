//! The accounts' rules on a real embedded store: registration, login, sessions, bots, deletion.

use super::*;
use crate::store::{AccountStore, Store};
use jchomp_testkit::temp::TempDir;

/// Sessions as long as the server's default.
const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

fn accounts(dir: &TempDir, ttl: Duration) -> Accounts {
    let store = Store::open(dir.path()).unwrap();
    Accounts::new(AccountStore::Embedded(Arc::new(store)), ttl)
}

#[tokio::test]
async fn register_login_logout_and_names_unique_ignoring_case() {
    let dir = TempDir::new("accounts-register");
    let a = accounts(&dir, SESSION_TTL);
    let alice = a.register("Alice", "password1".into(), "ip").await.unwrap();
    assert_eq!(a.authenticate(&alice.token).await.unwrap().name, "Alice");
    assert!(matches!(
        a.register("ALICE", "password2".into(), "ip").await,
        Err(AccountError::NameTaken(_))
    ));
    assert!(matches!(
        a.login("alice", "wrong-password".into(), "ip").await,
        Err(AccountError::BadCredentials)
    ));
    let again = a.login("aLiCe", "password1".into(), "ip").await.unwrap();
    assert_eq!(again.name, "Alice");
    a.logout(&alice.token).await.unwrap();
    assert!(matches!(
        a.authenticate(&alice.token).await,
        Err(AccountError::BadToken)
    ));
    assert!(a.authenticate(&again.token).await.is_ok());
}

#[tokio::test]
async fn bad_names_and_passwords_change_nothing() {
    let dir = TempDir::new("accounts-bad");
    let a = accounts(&dir, SESSION_TTL);
    let long = "a".repeat(21);
    assert!(matches!(
        a.register(&long, "password1".into(), "ip").await,
        Err(AccountError::BadName(_))
    ));
    assert!(matches!(
        a.register("Bob", "short".into(), "ip").await,
        Err(AccountError::BadPassword)
    ));
    assert!(a.account("bob").await.unwrap().is_none());
    assert!(a.register("Bob", "long enough".into(), "ip").await.is_ok());
}

#[tokio::test]
async fn a_session_expires() {
    let dir = TempDir::new("accounts-expiry");
    let a = accounts(&dir, Duration::from_millis(1));
    let s = a.register("Carol", "password1".into(), "ip").await.unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert!(matches!(
        a.authenticate(&s.token).await,
        Err(AccountError::BadToken)
    ));
}

#[tokio::test]
async fn logout_everywhere_and_password_change_end_sessions_not_bots() {
    let dir = TempDir::new("accounts-everywhere");
    let a = accounts(&dir, SESSION_TTL);
    let one = a.register("Dan", "password1".into(), "ip").await.unwrap();
    let two = a.login("dan", "password1".into(), "ip").await.unwrap();
    let bot = a.create_bot(&one.token, "DanBot").await.unwrap();
    assert_eq!(bot.expires_ms, None);
    assert_eq!(a.logout_everywhere(&one.token).await.unwrap(), 2);
    assert!(a.authenticate(&two.token).await.is_err());
    let who = a.authenticate(&bot.token).await.unwrap();
    assert_eq!((who.name.as_str(), who.kind), ("DanBot", AccountKind::Bot));
    let three = a.login("dan", "password1".into(), "ip").await.unwrap();
    let four = a
        .change_password(&three.token, "password1".into(), "password2".into())
        .await
        .unwrap();
    assert!(a.authenticate(&three.token).await.is_err());
    assert!(a.authenticate(&four.token).await.is_ok());
    assert!(a.login("dan", "password1".into(), "ip").await.is_err());
}

#[tokio::test]
async fn a_bot_token_is_revocable_and_cannot_act_as_a_person() {
    let dir = TempDir::new("accounts-bot");
    let a = accounts(&dir, SESSION_TTL);
    let eve = a.register("Eve", "password1".into(), "ip").await.unwrap();
    let bot = a.create_bot(&eve.token, "EveBot").await.unwrap();
    assert!(matches!(
        a.create_bot(&bot.token, "EveBot2").await,
        Err(AccountError::NotAPerson)
    ));
    let renewed = a.renew_bot_token(&eve.token, "evebot").await.unwrap();
    assert!(a.authenticate(&bot.token).await.is_err());
    assert!(a.authenticate(&renewed.token).await.is_ok());
    let other = a
        .register("Mallory", "password1".into(), "ip")
        .await
        .unwrap();
    assert!(matches!(
        a.renew_bot_token(&other.token, "EveBot").await,
        Err(AccountError::NotYourBot(_))
    ));
}

#[tokio::test]
async fn deleting_keeps_the_name_taken_and_ends_its_bots() {
    let dir = TempDir::new("accounts-delete");
    let a = accounts(&dir, SESSION_TTL);
    let f = a.register("Frank", "password1".into(), "ip").await.unwrap();
    let bot = a.create_bot(&f.token, "FrankBot").await.unwrap();
    assert!(matches!(
        a.delete(&f.token, "wrong-password".into()).await,
        Err(AccountError::BadCredentials)
    ));
    a.delete(&f.token, "password1".into()).await.unwrap();
    assert!(a.authenticate(&f.token).await.is_err());
    assert!(a.authenticate(&bot.token).await.is_err());
    assert!(a.login("Frank", "password1".into(), "ip").await.is_err());
    assert!(matches!(
        a.register("frank", "password1".into(), "ip").await,
        Err(AccountError::NameTaken(_))
    ));
    assert!(a.account("frank").await.unwrap().unwrap().deleted);
}

#[tokio::test]
async fn built_in_levels_have_accounts_nobody_can_log_in_to() {
    let dir = TempDir::new("accounts-builtin");
    let a = accounts(&dir, SESSION_TTL);
    a.ensure_built_ins().await.unwrap();
    a.ensure_built_ins().await.unwrap();
    let greedy = a.account("greedy").await.unwrap().unwrap();
    assert_eq!(greedy.kind, AccountKind::BuiltIn);
    assert!(a.login("greedy", "password1".into(), "ip").await.is_err());
    assert!(matches!(
        a.register("Random", "password1".into(), "ip").await,
        Err(AccountError::NameTaken(_))
    ));
}

/// `n` rated two-player games between `a` and `b`, ending at `when_ms`, `a` winning the even
/// ones.
fn rated_games(store: &Store, a: &str, b: &str, n: usize, when_ms: u64) {
    use jchomp_protocol::json::ResultJson;
    use jchomp_protocol::record::Record;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
    let records: Vec<Record> = (0..n)
        .map(|i| {
            let mut r: Record = record("4x4 poison 0,0")
                .id(&format!("{a}-{b}-{i}"))
                .seats([a, b])
                .result(ResultJson::Poisoned {
                    loser: (i % 2) as u8 ^ 1,
                })
                .started(when_ms)
                .finished(when_ms);
            r.config.rated = true;
            r
        })
        .collect();
    assert_eq!(store.rate(&records.iter().collect::<Vec<_>>()).unwrap(), n);
}

#[tokio::test]
async fn leaderboards_keep_people_and_bots_apart_and_leave_out_provisional_and_inactive() {
    let dir = TempDir::new("accounts-leaderboard");
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let a = Accounts::new(AccountStore::Embedded(store.clone()), SESSION_TTL);
    a.ensure_built_ins().await.unwrap();
    for name in ["Ann", "Bob", "Cyd", "Old", "Timer"] {
        a.register(name, "password1".into(), name).await.unwrap();
    }
    let now = now_ms();
    rated_games(&store, "Ann", "Bob", 40, now);
    rated_games(&store, "random", "greedy", 40, now);
    rated_games(&store, "Cyd", "level:1", 1, now);
    let long_ago = now - 40 * 86_400_000;
    rated_games(&store, "Old", "Timer", 40, long_ago);

    let people = a.leaderboard("jchomp:2", false, 30).await.unwrap();
    let names: Vec<&str> = people.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.contains(&"Ann") && names.contains(&"Bob"),
        "{names:?}"
    );
    assert!(people[0].rating.rating >= people[1].rating.rating);
    let bots = a.leaderboard("jchomp:2", true, 30).await.unwrap();
    let names: Vec<&str> = bots.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.contains(&"random") && names.contains(&"greedy"),
        "{names:?}"
    );
    // Over a longer window the players of long ago come back; other categories are empty.
    assert_eq!(a.leaderboard("jchomp:2", false, 60).await.unwrap().len(), 4);
    assert!(
        a.leaderboard("jchomp:3-4", false, 60)
            .await
            .unwrap()
            .is_empty()
    );

    let cyd = a.profile("cyd").await.unwrap().unwrap();
    assert!(cyd.ratings[0].provisional);
    assert_eq!(cyd.recent, ["Cyd-level:1-0"]);
    let ann = a.profile("ANN").await.unwrap().unwrap();
    assert!(!ann.ratings[0].provisional);
    assert_eq!(ann.ratings[0].history.len(), 40);
    assert_eq!(ann.recent.len(), 20);
}
