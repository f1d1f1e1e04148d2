//! The kit's real database servers: each starts from the OS packages, answers, keeps what it
//! acknowledged across a kill and a resume on the same port, and is gone when dropped.
#![cfg(feature = "engines")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::engines::{Postgres, Redis};
use std::net::TcpStream;

#[test]
fn redis_keeps_what_it_acknowledged_across_a_crash() {
    let mut redis = Redis::start();
    assert!(redis.url().ends_with(&format!(":{}/", redis.port())));
    assert_eq!(
        redis.command(&["SET", "room", "k3v9x2mq7a"]).as_deref(),
        Some("+OK")
    );
    redis.kill();
    assert_eq!(redis.command(&["PING"]), None, "killed");
    redis.resume();
    assert_eq!(redis.command(&["GET", "room"]).as_deref(), Some("$10"));
    let port = redis.port();
    drop(redis);
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "gone when dropped"
    );
}

#[test]
fn postgres_listens_again_on_its_port_after_a_crash() {
    let mut pg = Postgres::start();
    let port = pg.port();
    assert_eq!(
        pg.url(),
        format!("postgres://postgres@127.0.0.1:{port}/postgres")
    );
    pg.kill();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "killed");
    pg.resume();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    drop(pg);
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "gone when dropped"
    );
}
