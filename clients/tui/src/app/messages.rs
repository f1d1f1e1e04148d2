//! [`App::on_message`]: what each server message does to the client's state.

use super::{App, RoomScreen, Screen};
use crate::explain;
use crate::render_game::Notice;
use crate::room_state::{Applied, RoomState};
use crate::saved_seats::SeatUpdate;
use crate::style::Style;
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{
    ClientMessage, ErrorCode, GameSummary, Moved, RoomStatus, RoomSummary, ServerMessage, Snapshot,
    game_id,
};
use std::time::{Duration, Instant};

/// Where the cursor starts in a room: on a selection that does not eat poison (the first in
/// reading order), else on any valid selection, else the corner.
fn start_cell(state: &RoomState) -> (i64, i64) {
    nearest_cell(state, (0, 0))
}

/// The selection nearest `from` (fewest steps of the cursor; the first in reading order among
/// equals) that does not eat poison, else the nearest valid one, else `from`.
fn nearest_cell(state: &RoomState, from: (i64, i64)) -> (i64, i64) {
    let pick = state.position().safe_or_any_selections(&state.config);
    pick.iter()
        .map(|i| {
            let c = jchomp_protocol::rules::Cell::from_index(i);
            (i64::from(c.row), i64::from(c.col))
        })
        .min_by_key(|&(r, c)| (r - from.0).abs() + (c - from.1).abs())
        .unwrap_or(from)
}

/// For each seat dropped by a person, when the server's hold on it for a `resume` runs out.
fn grace_deadlines(state: &RoomState, now: Instant) -> Vec<Option<Instant>> {
    state
        .seats
        .iter()
        .map(|s| {
            s.as_ref()
                .filter(|s| !s.connected && !s.bot)
                .and_then(|s| s.grace_left_ms)
                .map(|ms| now + Duration::from_millis(ms))
        })
        .collect()
}

/// The name of the game's record: the server's; an older server's is counted here.
fn record_name(state: &RoomState, game_no: u32) -> String {
    if state.game_id.is_empty() {
        game_id(&state.room, game_no)
    } else {
        state.game_id.clone()
    }
}

/// What taking a snapshot changed, for the work outside the room screen.
struct Adopted {
    /// The turn, the moves or the status changed: hints and complaints are stale.
    changed: bool,
    /// A finished game plays again in the same room.
    rematch: bool,
}

impl RoomScreen {
    /// Takes the room's state from a snapshot: the seats' holds, the game count, the cursor
    /// and the turn clock follow it.
    fn adopt(&mut self, state: RoomState, time_left: Option<&[u64]>, now: Instant) -> Adopted {
        let old = self.state.as_ref();
        let changed = old.is_none_or(|old| {
            old.to_move != state.to_move
                || old.game.moves().len() != state.game.moves().len()
                || old.status != state.status
        });
        // The cursor is placed once the game has moves to offer: at the first snapshot of a
        // game in play, or when a waiting room starts.
        let started = old.is_none_or(|old| old.status != RoomStatus::Playing);
        // A finished game playing again is a rematch: its record is the room's next one, and
        // the seat is worth keeping again.
        let rematch = old.is_some_and(|old| old.status == RoomStatus::Finished)
            && state.status == RoomStatus::Playing;
        self.room = Some(state.room.clone());
        self.grace_until = grace_deadlines(&state, now);
        if rematch {
            self.game_no += 1;
        }
        if started && state.status == RoomStatus::Playing {
            self.cursor = start_cell(&state);
        }
        self.turn_clock = self.told_clock(&state, time_left, changed, now);
        self.state = Some(state);
        Adopted { changed, rematch }
    }

    /// The turn clock after a snapshot. The server's clock wins (a client resumed mid-turn
    /// shows the time really left); an older server's snapshot starts a turn afresh.
    fn told_clock(
        &self,
        state: &RoomState,
        time_left: Option<&[u64]>,
        changed: bool,
        now: Instant,
    ) -> Option<(Instant, u64)> {
        let told = time_left
            .zip(state.to_move)
            .and_then(|(t, s)| t.get(usize::from(s)).copied());
        match (told, state.move_time_ms()) {
            _ if state.status != RoomStatus::Playing => None,
            (Some(left), _) => Some((now, left)),
            (None, Some(total)) if changed => Some((now, total)),
            (None, _) => self.turn_clock,
        }
    }

    /// A move was applied: the next turn's clock starts, and on your turn a cursor left on
    /// eaten cells moves to the nearest selection, so it is on something you can take.
    fn after_move(&mut self, now: Instant) {
        let Some(state) = &self.state else {
            return;
        };
        self.turn_clock = state
            .move_time_ms()
            .filter(|_| state.status == RoomStatus::Playing)
            .map(|total| (now, total));
        let (row, col) = self.cursor;
        if self.seat.is_some()
            && state.to_move == self.seat
            && state.position().check(&state.config, row, col).is_err()
        {
            self.cursor = nearest_cell(state, self.cursor);
        }
    }
}

impl App {
    /// The position changed: a complaint about the one before (a refused move, "not your
    /// turn") no longer holds.
    fn clear_stale_notice(&mut self) {
        if self.notice.as_ref().is_some_and(|n| n.style == Style::Bad) {
            self.notice = None;
        }
        self.confirm_poison = None;
    }

    /// A message from the server arrived.
    pub fn on_message(&mut self, msg: ServerMessage, now: Instant) {
        match msg {
            ServerMessage::Rooms { rooms } => self.on_rooms(rooms),
            ServerMessage::Joined { room, seat, token } => self.on_joined(room, seat, token),
            ServerMessage::Room(snapshot) => self.on_snapshot(snapshot, now),
            ServerMessage::Moved(m) => self.on_moved(&m, now),
            ServerMessage::MoveRejected { reason, message } => {
                self.say(explain::refused_move(reason, &message), Style::Bad);
            }
            ServerMessage::Left { .. } => self.on_left(),
            ServerMessage::Error { code, message } => self.on_error(code, &message),
            // The client analyses positions itself and never asks the server.
            ServerMessage::Analysis(_) => {}
            ServerMessage::Games { games } => self.on_games(games),
            ServerMessage::Game { record } => self.on_game(record),
            ServerMessage::Presets {
                presets,
                bot_patience_secs,
            } => self.on_presets(presets, bot_patience_secs),
            ServerMessage::Seeking {
                preset,
                rating,
                waiting,
            } => self.on_seeking(preset, rating, waiting, now),
            ServerMessage::SeekEnded { preset } => self.on_seek_ended(&preset),
            ServerMessage::Paired { preset, room } => self.on_paired(&preset, room),
            // Logging in happens before the App takes the connection (`account`).
            ServerMessage::Account { .. }
            | ServerMessage::BotToken { .. }
            | ServerMessage::LoggedOut { .. } => {}
            // The client does not follow tournaments yet.
            ServerMessage::Tournaments { .. }
            | ServerMessage::Tournament(_)
            | ServerMessage::TournamentGame { .. } => {}
        }
    }

    /// The room list: the selection stays on the list, and a kept seat may be offered back.
    fn on_rooms(&mut self, rooms: Vec<RoomSummary>) {
        self.rooms = rooms;
        self.selected = self.selected.min(self.rooms.len().saturating_sub(1));
        self.offer_from_lobby();
    }

    /// A seat is ours: the room screen holds it, the seat is kept for a resume, the notice
    /// says how to take it back, and the bots asked for at creation are added.
    fn on_joined(&mut self, room: String, seat: u8, token: String) {
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
        let narrow = format!("Seat {seat} of room {room} is yours (resume command on quit).");
        self.notice = Some(Notice::with_command(text, command, narrow, Style::Good));
        for bot in std::mem::take(&mut self.pending_bots) {
            self.send(ClientMessage::AddBot { seat: None, bot });
        }
    }

    /// The whole room: the room screen takes it; a seat whose game ended is forgotten, and one
    /// playing a rematch is kept again.
    fn on_snapshot(&mut self, snapshot: Snapshot, now: Instant) {
        let Screen::Room(screen) = &mut self.screen else {
            return;
        };
        let time_left = snapshot.time_left_ms.clone();
        let state = match RoomState::from_snapshot(snapshot) {
            Ok(state) => state,
            Err(e) => {
                let text = e.to_string();
                self.say(text, Style::Bad);
                return;
            }
        };
        let over = state.status == RoomStatus::Finished;
        let room = state.room.clone();
        let adopted = screen.adopt(state, time_left.as_deref(), now);
        if adopted.changed {
            self.refresh_hints();
            self.clear_stale_notice();
        }
        if over {
            self.forget_seat(&room);
        }
        if adopted.rematch {
            self.notice = None;
            if let Screen::Room(r) = &self.screen
                && let (Some(seat), Some(token)) = (r.seat, r.token.clone())
            {
                self.keep_seat(&room, seat, &token);
            }
        }
    }

    /// A move: applied to the room kept here (or a sync asked for when one was missed); a
    /// move that ends the game says how to replay it.
    fn on_moved(&mut self, m: &Moved, now: Instant) {
        let Screen::Room(screen) = &mut self.screen else {
            return;
        };
        let Some(state) = &mut screen.state else {
            self.send(ClientMessage::Sync);
            return;
        };
        match state.apply_moved(m) {
            Applied::Ok => {}
            Applied::Stale => return,
            Applied::NeedSync => {
                self.send(ClientMessage::Sync);
                return;
            }
        }
        let room = state.room.clone();
        let record = record_name(state, screen.game_no);
        screen.after_move(now);
        self.clear_stale_notice();
        if m.status == RoomStatus::Finished {
            self.on_game_over(&room, &record);
        }
        self.refresh_hints();
    }

    /// The game in `room` ended: the panel tells the result; the notice says how to see it
    /// again, and the seat is no longer worth keeping.
    fn on_game_over(&mut self, room: &str, record: &str) {
        self.notice = Some(Notice::with_command(
            "Game over. To replay it later:",
            self.command(&format!("replay {record}")),
            format!("Game over: `jchomp replay {record}` replays it."),
            Style::Accent,
        ));
        self.forget_seat(room);
    }

    /// We left the room: back to the lobby, the seat forgotten. Leaving the old room on the
    /// way to a new game shows nothing.
    fn on_left(&mut self) {
        if self
            .room()
            .is_some_and(|r| r.host && r.room.is_none() && r.state.is_none())
        {
            return;
        }
        if let Some(room) = self.room().and_then(|r| r.room.clone()) {
            self.forget_seat(&room);
        }
        self.back_to_lobby();
        self.say("You left the room.", Style::Plain);
    }

    /// The server refused a request: said in words; a room that cannot be had any more sends
    /// the client back to the lobby, and a refused token's seat is forgotten.
    fn on_error(&mut self, code: ErrorCode, message: &str) {
        if self.pairing_error(code, message) {
            return;
        }
        let mut text = jchomp_protocol::connection::describe_error(code, message);
        let lost_room = match &self.screen {
            Screen::Room(r) => {
                r.state.is_none() || matches!(code, ErrorCode::BadToken | ErrorCode::NoSuchRoom)
            }
            _ => false,
        };
        if code == ErrorCode::BadToken {
            self.forget_refused_seat();
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

    /// The server does not know the room's token: the seat kept for it is of no use.
    fn forget_refused_seat(&mut self) {
        let Some(r) = self.room() else {
            return;
        };
        let (room, token) = (r.room.clone(), r.token.clone());
        self.saved
            .retain(|s| Some(&s.room) != room.as_ref() && Some(&s.token) != token.as_ref());
        if let Some(room) = room {
            self.seat_updates.push(SeatUpdate::Forget { room });
        }
    }

    /// The recent games: the games list's selection stays on the list.
    fn on_games(&mut self, games: Vec<GameSummary>) {
        self.games = games;
        if let Screen::Games { selected } = &mut self.screen {
            *selected = (*selected).min(self.games.len().saturating_sub(1));
        }
    }

    /// A stored game asked for from the games list: replayed, or why it cannot be.
    fn on_game(&mut self, record: Record) {
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

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;

    use crate::cli::CreateArgs;
    use jchomp_protocol::board_args::BoardArgs;
    use jchomp_protocol::rules::{Play, Variant};
    use jchomp_protocol::wire::{ClientMessage, ServerMessage};
    use jchomp_protocol::wire::{ErrorCode, RejectReason};
    use jchomp_testkit::fixtures::moved;
    use std::time::Instant;

    #[test]
    fn a_version_gap_asks_for_sync_and_rejections_read_as_words() {
        let mut app = seated(0);
        app.on_message(
            ServerMessage::Moved(moved("r1", 9, 0, (2, 2))),
            Instant::now(),
        );
        assert_eq!(app.take_outbox(), vec![ClientMessage::Sync]);
        // The server's sentence is shown as it gave it.
        app.on_message(
            ServerMessage::MoveRejected {
                reason: RejectReason::AlreadyEaten,
                message: "part of the 1×2 selection at (2,2) is already eaten".into(),
            },
            Instant::now(),
        );
        assert_eq!(
            app.notice().unwrap().text,
            "The server refused the move: part of the 1×2 selection at (2,2) is already eaten."
        );
        // A server that gives none: the reason's words.
        app.on_message(
            ServerMessage::MoveRejected {
                reason: RejectReason::NotYourTurn,
                message: String::new(),
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
                play: Play::Misere,
                no_square_bites: false,
            },
            move_time: None,
            bots: vec!["greedy".into(), "level:2".into()],
            rated: false,
        };
        let mut app = App::new("s", "me", Start::Create(args));
        let out = app.take_outbox();
        assert!(
            matches!(&out[..], [ClientMessage::CreateRoom { name, config, .. }]
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
                    seat: None,
                    bot: Some("greedy".into())
                },
                ClientMessage::AddBot {
                    seat: None,
                    bot: Some("level:2".into())
                }
            ]
        );
        assert!(app.room().unwrap().host);
    }
}

#[cfg(test)]
mod issue15_tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::json::ResultJson;
    use jchomp_protocol::wire::{ClientMessage, RoomStatus, ServerMessage};
    use jchomp_testkit::fixtures::{MovedFixture, moved};
    use std::time::{Duration, Instant};

    fn finish(app: &mut App, loser: u8) {
        app.on_message(
            ServerMessage::Moved(moved("r1", 4, loser, (0, 0)).poisoned()),
            Instant::now(),
        );
    }

    #[test]
    fn item6_an_offline_seat_counts_down_its_grace_and_tall_screens_list_the_moves() {
        let mut app = seated(0);
        let t0 = Instant::now();
        let mut snap = snapshot(4, 0);
        snap.seats[1].as_mut().unwrap().connected = false;
        snap.seats[1].as_mut().unwrap().grace_left_ms = Some(60_000);
        app.on_message(ServerMessage::Room(snap.clone()), t0);
        let text = to_text(&app.render(80, 24, t0 + Duration::from_millis(17_500)));
        assert!(text.contains("1 you [offline, 43s to resume]"), "{text}");
        // A later snapshot's word wins over the local count.
        snap.seats[1].as_mut().unwrap().grace_left_ms = Some(20_000);
        app.on_message(
            ServerMessage::Room(snap.clone()),
            t0 + Duration::from_secs(20),
        );
        let text = to_text(&app.render(80, 24, t0 + Duration::from_secs(30)));
        assert!(text.contains("1 you [offline, 10s to resume]"), "{text}");
        // Without a hold (an older server) the seat is only offline.
        snap.seats[1].as_mut().unwrap().grace_left_ms = None;
        app.on_message(ServerMessage::Room(snap), t0 + Duration::from_secs(31));
        let text = to_text(&app.render(80, 24, t0 + Duration::from_secs(40)));
        assert!(text.contains("1 you [offline]"), "{text}");
        app.on_message(ServerMessage::Moved(moved("r1", 5, 0, (3, 4))), t0);
        let tall = to_text(&app.render(120, 40, t0));
        assert!(tall.contains("Moves"), "{tall}");
        assert!(tall.contains("  1. you 3,4"), "{tall}");
        let short = to_text(&app.render(80, 24, t0));
        assert!(!short.contains("Moves"), "{short}");
    }

    #[test]
    fn item6_the_move_clock_runs_from_the_servers_time_left() {
        let mut app = seated(0);
        let t0 = Instant::now();
        // Resumed mid-turn: 12.5 s of the 30 s are left, not a fresh 30 s.
        let mut snap = snapshot(4, 0);
        snap.time_left_ms = Some(vec![12_500, 30_000]);
        app.on_message(ServerMessage::Room(snap.clone()), t0);
        let text = to_text(&app.render(80, 24, t0 + Duration::from_secs(2)));
        assert!(text.contains("Your turn · 10.5s"), "{text}");
        // The same position told again with the server's clock: its word wins.
        snap.time_left_ms = Some(vec![4_000, 30_000]);
        app.on_message(ServerMessage::Room(snap), t0 + Duration::from_secs(3));
        let text = to_text(&app.render(80, 24, t0 + Duration::from_secs(3)));
        assert!(text.contains("Your turn · 4.0s"), "{text}");
        // A move starts the next seat's whole turn.
        app.on_message(
            ServerMessage::Moved(moved("r1", 5, 0, (3, 4))),
            t0 + Duration::from_secs(4),
        );
        let text = to_text(&app.render(80, 24, t0 + Duration::from_secs(5)));
        assert!(text.contains("you to move · 29.0s"), "{text}");
    }

    #[test]
    fn item7_a_rematch_is_asked_in_the_same_room_and_waits_for_every_person() {
        let mut app = seated(0);
        let t0 = Instant::now();
        let finished = |version: u64, rematch: Vec<u8>| {
            let mut snap = snapshot(version, 0);
            snap.seats[1].as_mut().unwrap().name = "bob".into();
            snap.status = RoomStatus::Finished;
            snap.to_move = None;
            snap.eaten = vec![[0, 0]];
            snap.moves = vec![jchomp_protocol::json::MoveJson {
                seat: 1,
                row: 0,
                col: 0,
            }];
            snap.result = Some(ResultJson::Poisoned { loser: 1 });
            snap.rematch = rematch;
            snap
        };
        app.on_message(ServerMessage::Room(finished(4, vec![])), t0);
        app.take_outbox();
        app.on_key(key(KeyCode::Char('r')));
        assert_eq!(app.take_outbox(), vec![ClientMessage::Rematch]);
        // The server shows the ask to everyone; the panel says who is still awaited.
        app.on_message(ServerMessage::Room(finished(5, vec![0])), t0);
        let text = to_text(&app.render(80, 24, t0));
        assert!(
            text.contains("Rematch asked by you; waiting for bob."),
            "{text}"
        );
        assert_eq!(
            text.lines().last().unwrap(),
            "Game over: n new room  Esc back to the lobby  q quit",
            "no second ask is offered: {text}"
        );
        // Every person asked: the same room plays again, from the start.
        let mut again = snapshot(6, 0);
        again.seats[1].as_mut().unwrap().name = "bob".into();
        again.game = "r1-2".into();
        app.on_message(ServerMessage::Room(again), t0);
        let text = to_text(&app.render(80, 24, t0));
        assert!(text.contains("Your turn"), "{text}");
        assert!(!text.contains("Rematch"), "{text}");
        let room = app.room().unwrap();
        assert_ne!(room.cursor, (0, 0), "the cursor starts on a safe cell");
        assert_eq!(room.game_no, 2);
        // Its record is the room's second one.
        app.on_message(
            ServerMessage::Moved(moved("r1", 7, 0, (0, 0)).poisoned()),
            t0,
        );
        let text = to_text(&app.render(80, 24, t0));
        assert!(text.contains("replay r1-2"), "{text}");
        // A spectator cannot ask.
        let mut watcher = App::new("ws://s/ws", "me", Start::Watch("r1".into()));
        watcher.on_message(ServerMessage::Room(finished(4, vec![1])), t0);
        watcher.take_outbox();
        watcher.on_key(key(KeyCode::Char('r')));
        assert!(watcher.take_outbox().is_empty());
        let text = to_text(&watcher.render(80, 24, t0));
        assert!(
            text.contains("Rematch asked by bob; waiting for me."),
            "{text}"
        );
    }

    #[test]
    fn the_replay_hint_names_the_record_the_server_names() {
        let over = |app: &mut App, version: u64| {
            app.on_message(
                ServerMessage::Moved(moved("r1", version, 0, (0, 0)).poisoned()),
                Instant::now(),
            );
            to_text(&app.render(80, 24, Instant::now()))
        };
        // Joined while the room plays its third game: the server says which record it is.
        let mut app = seated(0);
        let mut third = snapshot(4, 0);
        third.game = "r1-3".into();
        app.on_message(ServerMessage::Room(third), Instant::now());
        let text = over(&mut app, 5);
        assert!(text.contains("replay r1-3"), "{text}");
        // An older server names none: the first game seen is the room's own record.
        let mut app = seated(0);
        let mut old = snapshot(4, 0);
        old.game = String::new();
        app.on_message(ServerMessage::Room(old), Instant::now());
        let text = over(&mut app, 5);
        assert!(
            text.contains("replay r1") && !text.contains("replay r1-"),
            "{text}"
        );
    }

    #[test]
    fn item7_the_game_over_screen_offers_what_comes_next() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Char('7')));
        app.on_key(key(KeyCode::Char(',')));
        finish(&mut app, 1);
        app.on_key(key(KeyCode::Esc));
        let text = to_text(&app.render(80, 24, Instant::now()));
        let footer = text.lines().last().unwrap();
        assert_eq!(
            footer,
            "Game over: r rematch  n new room  Esc back to the lobby  q quit"
        );
        assert!(
            !text.contains("? hint") && !text.contains("Enter eat"),
            "{text}"
        );
        assert!(
            !text.contains(": eats"),
            "no selection after the game: {text}"
        );
        assert!(text.contains("you ate poison and lost; you win."), "{text}");
        assert!(
            text.contains("jchomp --server ws://s/ws replay r1"),
            "{text}"
        );
        // n: a new room on the same board.
        app.take_outbox();
        app.on_key(key(KeyCode::Char('n')));
        let out = app.take_outbox();
        assert_eq!(out[0], ClientMessage::Leave);
        let config = snapshot(0, 0).config;
        assert!(
            matches!(&out[1], ClientMessage::CreateRoom { config: c, .. } if *c == config),
            "{out:?}"
        );
        app.on_message(ServerMessage::Left { room: "r1".into() }, Instant::now());
        assert!(matches!(app.screen, Screen::Room(_)), "still on the way");
        // Esc after a game goes back to the lobby.
        let mut app = seated(0);
        finish(&mut app, 0);
        app.take_outbox();
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(app.screen, Screen::Lobby));
    }

    #[test]
    fn item3_on_your_turn_the_cursor_is_never_left_on_eaten_cells() {
        let mut app = seated(0);
        for c in "3,4".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        app.take_outbox();
        let now = Instant::now();
        app.on_message(ServerMessage::Moved(moved("r1", 4, 0, (3, 4))), now);
        assert_eq!(app.room().unwrap().cursor, (3, 4), "not my turn: it stays");
        app.on_message(ServerMessage::Moved(moved("r1", 5, 1, (3, 3))), now);
        let cursor = app.room().unwrap().cursor;
        assert!(cursor == (2, 4) || cursor == (3, 2), "{cursor:?}");
    }

    #[test]
    fn item11_status_lines_do_not_go_stale() {
        // "It is not your turn." goes when the turn comes.
        let mut app = seated(1);
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.notice().unwrap().text, "It is not your turn.");
        app.on_message(
            ServerMessage::Moved(moved("r1", 4, 0, (3, 4))),
            Instant::now(),
        );
        assert!(app.notice().is_none());
        // A seat not to move sees a preview, not "you lose".
        let mut app = seated(1);
        app.on_key(key(KeyCode::Left));
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("0,0 on your turn: eats POISON"), "{text}");
        assert!(!text.contains("you lose"), "{text}");
        // A waiting host sees no refusal for a game that has not started.
        let mut app = seated(0);
        let mut waiting = snapshot(5, 0);
        waiting.status = RoomStatus::Waiting;
        waiting.to_move = None;
        waiting.seats[1] = None;
        let mut app2 = App::new("ws://s/ws", "me", Start::Join("r1".into()));
        app2.on_message(ServerMessage::Room(waiting.clone()), Instant::now());
        app.on_message(ServerMessage::Room(waiting), Instant::now());
        for a in [&app, &app2] {
            let text = to_text(&a.render(80, 24, Instant::now()));
            assert!(!text.contains("has not started"), "{text}");
            assert!(text.contains("Waiting for 1 more player"), "{text}");
        }
        // A bot spec error goes once a good spec is sent.
        app.on_key(key(KeyCode::Char('b')));
        for c in "wizard\r".chars() {
            app.on_key(key(if c == '\r' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            }));
        }
        assert!(app.notice().unwrap().text.contains("valid forms"));
        app.on_key(key(KeyCode::Char('b')));
        for c in "greedy\r".chars() {
            app.on_key(key(if c == '\r' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            }));
        }
        assert!(app.notice().is_none(), "{:?}", app.notice());
    }
}
