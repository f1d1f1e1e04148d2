//! [`App::on_message`]: what each server message does to the client's state.

use super::{App, RoomScreen, Screen};
use crate::explain;
use crate::render_game::Notice;
use crate::room_state::{Applied, RoomState};
use crate::style::Style;
use jchomp_protocol::wire::{ClientMessage, RoomStatus, ServerMessage};
use std::time::Instant;

/// Where the cursor starts in a room: on a selection that does not eat poison (the first in
/// reading order), else on any valid selection, else the corner.
fn start_cell(state: &RoomState) -> (i64, i64) {
    let pos = state.position();
    let safe = pos.safe_selections(&state.config);
    let pick = if safe.is_empty() {
        pos.selections()
    } else {
        safe
    };
    pick.iter()
        .next()
        .map(|i| {
            let c = jchomp_protocol::rules::Cell::from_index(i);
            (i64::from(c.row), i64::from(c.col))
        })
        .unwrap_or((0, 0))
}

impl App {
    /// A message from the server arrived.
    pub fn on_message(&mut self, msg: ServerMessage, now: Instant) {
        match msg {
            ServerMessage::Rooms { rooms } => {
                self.rooms = rooms;
                self.selected = self.selected.min(self.rooms.len().saturating_sub(1));
                self.offer_from_lobby();
            }
            ServerMessage::Joined { room, seat, token } => {
                let mut screen = match std::mem::replace(&mut self.screen, Screen::Lobby) {
                    Screen::Room(r) => r,
                    _ => Box::new(RoomScreen::new(None)),
                };
                let back = screen.token.is_some()
                    || (screen.room.as_deref() == Some(room.as_str()) && screen.state.is_some());
                if !back {
                    screen.state = None;
                }
                screen.room = Some(room.clone());
                screen.seat = Some(seat);
                let text = format!(
                    "{} seat {seat} in room {room}. To take it back from elsewhere:",
                    if back { "Back in your" } else { "You hold" }
                );
                let command = self.command(&format!("resume {token}"));
                self.keep_seat(&room, seat, &token);
                screen.token = Some(token);
                screen.host |= seat == 0;
                self.screen = Screen::Room(screen);
                self.notice = Some(Notice {
                    command: Some(command),
                    ..Notice::new(text, Style::Good)
                });
                for bot in std::mem::take(&mut self.pending_bots) {
                    self.send(ClientMessage::AddBot { bot: Some(bot) });
                }
            }
            ServerMessage::Room(snapshot) => {
                let Screen::Room(screen) = &mut self.screen else {
                    return;
                };
                match RoomState::from_snapshot(snapshot) {
                    Ok(state) => {
                        let changed = screen.state.as_ref().is_none_or(|old| {
                            old.to_move != state.to_move
                                || old.game.moves().len() != state.game.moves().len()
                                || old.status != state.status
                        });
                        screen.room = Some(state.room.clone());
                        // The cursor is placed once the game has moves to offer: at the
                        // first snapshot of a game in play, or when a waiting room starts.
                        let started = screen
                            .state
                            .as_ref()
                            .is_none_or(|old| old.status == RoomStatus::Waiting);
                        if started && state.status == RoomStatus::Playing {
                            screen.cursor = start_cell(&state);
                        }
                        let over = state.status == RoomStatus::Finished;
                        let room = state.room.clone();
                        screen.state = Some(state);
                        if changed {
                            screen.turn_since = Some(now);
                            self.refresh_hints();
                        }
                        if over {
                            self.forget_seat(&room);
                        }
                    }
                    Err(e) => {
                        let text = e.to_string();
                        self.say(text, Style::Bad);
                    }
                }
            }
            ServerMessage::Moved(m) => {
                let Screen::Room(screen) = &mut self.screen else {
                    return;
                };
                let Some(state) = &mut screen.state else {
                    self.send(ClientMessage::Sync);
                    return;
                };
                match state.apply_moved(&m) {
                    Applied::Ok => {
                        screen.turn_since = Some(now);
                        if m.status == RoomStatus::Finished
                            && let Some(r) = m.result
                        {
                            let text = explain::result(r, &state.seats, screen.seat);
                            let room = state.room.clone();
                            self.say(text, Style::Accent);
                            self.forget_seat(&room);
                        }
                        self.refresh_hints();
                    }
                    Applied::Stale => {}
                    Applied::NeedSync => self.send(ClientMessage::Sync),
                }
            }
            ServerMessage::MoveRejected { reason, .. } => {
                self.say(explain::rejection(reason), Style::Bad);
            }
            ServerMessage::Left { .. } => {
                if let Some(room) = self.room().and_then(|r| r.room.clone()) {
                    self.forget_seat(&room);
                }
                self.back_to_lobby();
                self.say("You left the room.", Style::Plain);
            }
            ServerMessage::Error { code, message } => {
                use jchomp_protocol::wire::ErrorCode;
                let mut text = jchomp_protocol::connection::describe_error(code, &message);
                let lost_room = match &self.screen {
                    Screen::Room(r) => {
                        r.state.is_none()
                            || matches!(code, ErrorCode::BadToken | ErrorCode::NoSuchRoom)
                    }
                    _ => false,
                };
                if code == ErrorCode::BadToken
                    && let Some(r) = self.room()
                {
                    let (room, token) = (r.room.clone(), r.token.clone());
                    self.saved.retain(|s| {
                        Some(&s.room) != room.as_ref() && Some(&s.token) != token.as_ref()
                    });
                    if let Some(room) = room {
                        self.seat_updates
                            .push(crate::saved_seats::SeatUpdate::Forget { room });
                    }
                }
                if lost_room {
                    self.back_to_lobby();
                }
                if code == ErrorCode::RoomFull && lost_room {
                    if !text.ends_with('.') {
                        text.push('.');
                    }
                    text.push_str(" Select it and press w to watch instead.");
                }
                self.say(text, Style::Bad);
            }
            // The client analyses positions itself and never asks the server.
            ServerMessage::Analysis(_) => {}
            ServerMessage::Games { games } => {
                self.games = games;
                if let Screen::Games { selected } = &mut self.screen {
                    *selected = (*selected).min(self.games.len().saturating_sub(1));
                }
            }
            ServerMessage::Game { record } => {
                if !matches!(self.screen, Screen::Games { .. }) {
                    return;
                }
                match record.replay() {
                    Ok(_) => {
                        self.notice = None;
                        self.open_replay(record, 0, true);
                    }
                    Err(e) => self.say(format!("That game does not replay: {e}"), Style::Bad),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;

    use crate::cli::CreateArgs;
    use jchomp_protocol::board_args::BoardArgs;
    use jchomp_protocol::rules::Variant;
    use jchomp_protocol::wire::{ClientMessage, ServerMessage};
    use jchomp_protocol::wire::{ErrorCode, RejectReason};
    use std::time::Instant;

    #[test]
    fn a_version_gap_asks_for_sync_and_rejections_read_as_words() {
        let mut app = seated(0);
        app.on_message(
            ServerMessage::Moved(jchomp_testkit::moved("r1", 9, 0, (2, 2), 1)),
            Instant::now(),
        );
        assert_eq!(app.take_outbox(), vec![ClientMessage::Sync]);
        app.on_message(
            ServerMessage::MoveRejected {
                reason: RejectReason::NotYourTurn,
                message: "x".into(),
            },
            Instant::now(),
        );
        assert_eq!(app.notice().unwrap().text, "It is not your turn.");
    }

    #[test]
    fn a_failed_join_returns_to_the_lobby_in_plain_words() {
        let mut app = App::new("s", "me", Start::Join("nope".into()));
        app.take_outbox();
        app.on_message(
            ServerMessage::Error {
                code: ErrorCode::NoSuchRoom,
                message: "no room nope".into(),
            },
            Instant::now(),
        );
        assert!(matches!(app.screen, Screen::Lobby));
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("There is no room with that id"), "{text}");
        assert!(!text.contains('{'), "{text}");
    }

    #[test]
    fn create_sends_the_config_then_adds_the_bots_once_seated() {
        let args = CreateArgs {
            board: BoardArgs {
                size: (5, 6),
                variant: Variant::JChomp,
                eat: Some((1, 2)),
                poison: vec![],
                players: 3,
            },
            move_time: None,
            bots: vec!["greedy".into(), "level:2".into()],
        };
        let mut app = App::new("s", "me", Start::Create(args));
        let out = app.take_outbox();
        assert!(
            matches!(&out[..], [ClientMessage::CreateRoom { name, config }]
            if name == "me" && config.rows == 5 && config.players == 3)
        );
        app.on_message(
            ServerMessage::Joined {
                room: "r9".into(),
                seat: 0,
                token: "t".into(),
            },
            Instant::now(),
        );
        assert_eq!(
            app.take_outbox(),
            vec![
                ClientMessage::AddBot {
                    bot: Some("greedy".into())
                },
                ClientMessage::AddBot {
                    bot: Some("level:2".into())
                }
            ]
        );
        assert!(app.room().unwrap().host);
    }
}
