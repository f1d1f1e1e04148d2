//! The accounts' rules — registration, login, sessions, bots, deletion, profiles and
//! leaderboards — each on a real embedded store, and all of them on a real PostgreSQL.

use super::*;
use crate::store::{AccountStore, PgRecords, Store};
use jchomp_protocol::record::Record;
use jchomp_testkit::engines::Postgres;
use jchomp_testkit::temp::TempDir;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sessions as long as the server's default.
const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Where one rule is tried: a fresh embedded store, or a fresh database in a PostgreSQL.
enum Place {
    Embedded { store: Arc<Store>, _dir: TempDir },
    Postgres(PgRecords),
}

impl Place {
    fn embedded(name: &str) -> Place {
        let dir = TempDir::new(name);
        let store = Arc::new(Store::open(dir.path()).unwrap());
        Place::Embedded { store, _dir: dir }
    }

    /// A new database in `pg`, its schema made by the server's migrations.
    async fn postgres(pg: &Postgres) -> Place {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let db = format!("rule_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let (client, conn) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client
            .batch_execute(&format!("CREATE DATABASE {db}"))
            .await
            .unwrap();
        let (server, _) = pg
            .url()
            .rsplit_once('/')
            .map(|(s, d)| (s.to_string(), d.to_string()))
            .unwrap();
        Place::Postgres(PgRecords::connect(&format!("{server}/{db}")).await.unwrap())
    }

    fn store(&self) -> AccountStore {
        match self {
            Place::Embedded { store, .. } => AccountStore::Embedded(store.clone()),
            Place::Postgres(pg) => AccountStore::Postgres(pg.clone()),
        }
    }

    fn accounts(&self, ttl: Duration) -> Accounts {
        Accounts::new(self.store(), ttl)
    }

    /// Counts finished rated games as the server does: in the embedded store, or by inserting
    /// their records into PostgreSQL. Returns how many were new.
    async fn rate(&self, records: &[Record]) -> usize {
        match self {
            Place::Embedded { store, .. } => {
                store.rate(&records.iter().collect::<Vec<_>>()).unwrap()
            }
            Place::Postgres(pg) => {
                let rows: Vec<(String, String)> = records
                    .iter()
                    .map(|r| (r.id.clone().unwrap(), serde_json::to_string(r).unwrap()))
                    .collect();
                pg.insert(&rows).await.unwrap() as usize
            }
        }
    }
}

async fn register_login_logout_and_names_unique_ignoring_case(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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

async fn bad_names_and_passwords_change_nothing(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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

async fn a_session_expires(place: &Place) {
    let a = place.accounts(Duration::from_millis(1));
    let s = a.register("Carol", "password1".into(), "ip").await.unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert!(matches!(
        a.authenticate(&s.token).await,
        Err(AccountError::BadToken)
    ));
    // The expired session is refused, then forgotten when the next one is made.
    let store = place.store();
    assert!(store.token(&token_hash(&s.token)).await.unwrap().is_some());
    a.login("carol", "password1".into(), "ip").await.unwrap();
    assert!(store.token(&token_hash(&s.token)).await.unwrap().is_none());
}

async fn logout_everywhere_and_password_change_end_sessions_not_bots(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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

async fn a_bot_token_is_revocable_and_cannot_act_as_a_person(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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

async fn deleting_keeps_the_name_taken_and_ends_its_bots(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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

async fn built_in_levels_have_accounts_nobody_can_log_in_to(place: &Place) {
    let a = place.accounts(SESSION_TTL);
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
fn rated_games(a: &str, b: &str, n: usize, when_ms: u64) -> Vec<Record> {
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
    (0..n)
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
        .collect()
}

async fn leaderboards_keep_people_and_bots_apart_and_leave_out_provisional_and_inactive(
    place: &Place,
) {
    let a = place.accounts(SESSION_TTL);
    a.ensure_built_ins().await.unwrap();
    for name in ["Ann", "Bob", "Cyd", "Old", "Timer"] {
        a.register(name, "password1".into(), name).await.unwrap();
    }
    let now = now_ms();
    assert_eq!(place.rate(&rated_games("Ann", "Bob", 40, now)).await, 40);
    assert_eq!(
        place.rate(&rated_games("random", "greedy", 40, now)).await,
        40
    );
    assert_eq!(place.rate(&rated_games("Cyd", "level:1", 1, now)).await, 1);
    let long_ago = now - 40 * 86_400_000;
    assert_eq!(
        place.rate(&rated_games("Old", "Timer", 40, long_ago)).await,
        40
    );

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

/// Each rule as a test of its own on the embedded store, and every rule in one test on one
/// PostgreSQL, each in a database of its own.
macro_rules! on_both_stores {
    ($($rule:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test]
                async fn $rule() {
                    super::$rule(&super::Place::embedded(stringify!($rule))).await;
                }
            )*
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn every_rule_holds_in_postgres() {
            let pg = Postgres::start();
            $(
                $rule(&Place::postgres(&pg).await).await;
            )*
        }
    };
}

on_both_stores!(
    register_login_logout_and_names_unique_ignoring_case,
    bad_names_and_passwords_change_nothing,
    a_session_expires,
    logout_everywhere_and_password_change_end_sessions_not_bots,
    a_bot_token_is_revocable_and_cannot_act_as_a_person,
    deleting_keeps_the_name_taken_and_ends_its_bots,
    built_in_levels_have_accounts_nobody_can_log_in_to,
    leaderboards_keep_people_and_bots_apart_and_leave_out_provisional_and_inactive,
);

/// With the accounts in PostgreSQL, two nodes count the same failures and attempts: a guesser
/// gains nothing by spreading over nodes, and a success on one node clears the failures seen
/// on the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_throttle_is_shared_by_every_node() {
    let pg = Postgres::start();
    let place = Place::postgres(&pg).await;
    let (a, b) = (place.accounts(SESSION_TTL), place.accounts(SESSION_TTL));
    a.register("Ann", "correct horse".into(), "10.0.0.1")
        .await
        .unwrap();
    let wrong = |node: &Accounts, address: &'static str| {
        let node = node.clone();
        async move { node.login("ann", "wrong horse".into(), address).await }
    };
    for i in 0..throttle::ACCOUNT_FAILURES {
        let node = if i % 2 == 0 { &a } else { &b };
        assert!(matches!(
            wrong(node, "10.0.1.1").await,
            Err(AccountError::BadCredentials)
        ));
    }
    for node in [&a, &b] {
        assert!(matches!(
            node.login("ann", "correct horse".into(), "10.0.2.2").await,
            Err(AccountError::Throttled(throttle::Limit::Account))
        ));
    }
    // Another account from another address is not held back.
    b.register("Bob", "battery staple".into(), "10.0.3.3")
        .await
        .unwrap();
    // An address's attempts add up over the nodes.
    for i in 0..throttle::ADDRESS_ATTEMPTS - 1 {
        let node = if i % 2 == 0 { &a } else { &b };
        let _ = node.login("bob", "battery staple".into(), "10.0.3.3").await;
    }
    assert!(matches!(
        a.login("bob", "battery staple".into(), "10.0.3.3").await,
        Err(AccountError::Throttled(throttle::Limit::Address))
    ));
    assert!(
        b.login("bob", "battery staple".into(), "10.0.4.4")
            .await
            .is_ok()
    );
}
