//! Helpers shared by the [`App`](super::App) unit tests: keys, a room snapshot, a seated
//! client, and running hint analyses the way the runner does.

use super::{App, Start};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jchomp_protocol::wire::{ClientMessage, ServerMessage, Snapshot};
use jchomp_testkit::fixtures::{Fixture, SnapshotFixture, seat};
use std::time::Instant;

pub(crate) fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

/// Room r1 of me and you on a 4×5 board (30 s a move) at version `version`, before the first
/// move, with `to_move` to move.
pub(crate) fn snapshot(version: u64, to_move: u8) -> Snapshot {
    Snapshot {
        to_move: Some(to_move),
        ..jchomp_testkit::fixtures::snapshot("r1", "4x5 poison 0,0")
            .timed(30_000)
            .seats([seat("me"), seat("you")])
            .play(&[])
            .version(version)
    }
}

/// Runs the pending hint analysis, as the runner does off the screen's loop.
pub(crate) fn run_hints(app: &mut App) {
    while let Some(job) = app.take_hint_job() {
        let result = job.run();
        app.on_hints(job.key, result);
    }
}

pub(crate) fn seated(seat: u8) -> App {
    let mut app = App::new("ws://s/ws", "me", Start::Join("r1".into())).with_hint_limit(None);
    assert_eq!(
        app.take_outbox(),
        vec![ClientMessage::JoinRoom {
            seat: None,
            room: "r1".into(),
            name: "me".into()
        }]
    );
    let now = Instant::now();
    app.on_message(
        ServerMessage::Joined {
            room: "r1".into(),
            seat,
            token: "tok".into(),
        },
        now,
    );
    app.on_message(ServerMessage::Room(snapshot(3, 0)), now);
    app
}
