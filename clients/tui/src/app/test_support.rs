//! Helpers shared by the [`App`](super::App) unit tests: keys, a room snapshot, a seated
//! client, and running hint analyses the way the runner does.

use super::{App, Start};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jchomp_protocol::wire::{ClientMessage, RoomStatus, SeatInfo, ServerMessage, Snapshot};
use jchomp_testkit::timed_config_json;
use std::time::Instant;

pub(crate) fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

pub(crate) fn seat(name: &str) -> Option<SeatInfo> {
    Some(SeatInfo {
        name: name.into(),
        bot: false,
        connected: true,
        grace_left_ms: None,
    })
}

pub(crate) fn snapshot(version: u64, to_move: u8) -> Snapshot {
    Snapshot {
        room: "r1".into(),
        config: timed_config_json("4x5 poison 0,0", 30_000),
        seats: vec![seat("me"), seat("you")],
        status: RoomStatus::Playing,
        to_move: Some(to_move),
        eaten: vec![],
        moves: vec![],
        result: None,
        version,
        time_left_ms: None,
        rematch: Vec::new(),
        game: "r1".into(),
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
