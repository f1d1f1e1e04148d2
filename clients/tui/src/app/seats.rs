//! The seats the client holds between runs: what the [`App`] says to keep or forget
//! ([`SeatUpdate`]), and the offer to take a kept seat back ("Resume your game in room X?
//! [Y/n]") in the lobby and on `join`.

use super::{App, RoomScreen, Screen};
use crate::input::Action;
use crate::saved_seats::{SavedSeat, SeatUpdate};
use jchomp_protocol::wire::{ClientMessage, RoomStatus};

/// A kept seat the client offers to take back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResumeOffer {
    /// The room.
    pub room: String,
    /// The seat's token.
    pub token: String,
    /// Whether declining joins the room anew (the user asked to join it) or only closes the
    /// question (the lobby noticed the seat).
    pub join_otherwise: bool,
}

impl ResumeOffer {
    /// The question, as the screen asks it on a line `width` columns wide: shorter where the
    /// whole sentence would lose its answer keys.
    pub(crate) fn question(&self, width: usize) -> String {
        let whole = format!("Resume your game in room {}? [Y/n] ", self.room);
        if whole.chars().count() <= width {
            whole
        } else {
            format!("Resume room {}? [Y/n] ", self.room)
        }
    }
}

impl App {
    /// Gives the client the seats kept for its server. If it was started to join a room where
    /// it holds a seat, it asks first whether to take that seat back.
    pub(crate) fn with_saved_seats(mut self, seats: Vec<SavedSeat>) -> App {
        self.saved = seats;
        if let [ClientMessage::JoinRoom { room, .. }] = &self.outbox[..] {
            let room = room.clone();
            if self.offer_for(&room, true) {
                self.outbox.clear();
            }
        }
        self
    }

    /// Takes the changes to the seats kept, for the runner to write.
    pub(crate) fn take_seat_updates(&mut self) -> Vec<SeatUpdate> {
        std::mem::take(&mut self.seat_updates)
    }

    /// The question asked about a kept seat, if any.
    #[cfg(test)]
    pub(crate) fn offer(&self) -> Option<&ResumeOffer> {
        self.offer.as_ref()
    }

    /// Asks whether to take back the seat kept in `room`, if there is one; returns whether it
    /// asks.
    pub(super) fn offer_for(&mut self, room: &str, join_otherwise: bool) -> bool {
        let Some(kept) = self.saved.iter().find(|s| s.room == room) else {
            return false;
        };
        self.offer = Some(ResumeOffer {
            room: room.to_owned(),
            token: kept.token.clone(),
            join_otherwise,
        });
        true
    }

    /// The lobby's rooms arrived: a kept seat in a room whose game is over is forgotten, one
    /// in a room still open is offered once.
    pub(super) fn offer_from_lobby(&mut self) {
        let over: Vec<String> = self
            .rooms
            .iter()
            .filter(|r| r.status == RoomStatus::Finished)
            .map(|r| r.room.clone())
            .collect();
        for room in over {
            self.forget_seat(&room);
        }
        if self.offer.is_some() || self.prompt.is_some() || !matches!(self.screen, Screen::Lobby) {
            return;
        }
        let room = self
            .rooms
            .iter()
            .filter(|r| r.status != RoomStatus::Finished)
            .find(|r| {
                self.saved.iter().any(|s| s.room == r.room) && !self.declined.contains(&r.room)
            })
            .map(|r| r.room.clone());
        if let Some(room) = room {
            self.offer_for(&room, false);
        }
    }

    /// A key while the question is asked: y, Y or Enter resume, n, N or Esc decline.
    pub(super) fn offer_key(&mut self, action: Action) {
        let Some(offer) = self.offer.take() else {
            return;
        };
        match action {
            Action::Confirm | Action::Char('y' | 'Y') => {
                let mut screen = RoomScreen::new(Some(offer.room));
                screen.token = Some(offer.token.clone());
                self.screen = Screen::Room(Box::new(screen));
                self.prompt = None;
                self.notice = None;
                self.send(ClientMessage::Resume { token: offer.token });
            }
            Action::Cancel | Action::Char('n' | 'N') => {
                self.declined.push(offer.room.clone());
                if offer.join_otherwise {
                    self.join_now(offer.room);
                }
            }
            Action::Char('q') => self.quit = true,
            _ => self.offer = Some(offer),
        }
    }

    /// Keeps the seat just taken.
    pub(super) fn keep_seat(&mut self, room: &str, seat: u8, token: &str) {
        self.saved.retain(|s| s.room != room);
        self.saved.push(SavedSeat {
            server: self.server.clone(),
            room: room.to_owned(),
            seat,
            token: token.to_owned(),
            saved_ms: 0,
        });
        self.seat_updates.push(SeatUpdate::Keep {
            room: room.to_owned(),
            seat,
            token: token.to_owned(),
        });
    }

    /// Forgets the seat kept in `room`, if any.
    pub(super) fn forget_seat(&mut self, room: &str) {
        if self.saved.iter().any(|s| s.room == room) {
            self.saved.retain(|s| s.room != room);
            self.seat_updates.push(SeatUpdate::Forget {
                room: room.to_owned(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::wire::{ErrorCode, ServerMessage};
    use jchomp_testkit::fixtures::{Fixture, RoomFixture, room_summary, seat};

    fn kept(room: &str) -> Vec<SavedSeat> {
        vec![SavedSeat {
            server: "ws://s/ws".into(),
            room: room.into(),
            seat: 1,
            token: "tok9".into(),
            saved_ms: 0,
        }]
    }

    fn rooms(app: &mut App, ids: &[&str]) {
        let rooms = ids
            .iter()
            .map(|id| {
                room_summary(id, "4x5 poison 0,0")
                    .timed(30_000)
                    .seats([seat("a"), seat("me")])
                    .status(RoomStatus::Playing)
            })
            .collect();
        app.on_message(ServerMessage::Rooms { rooms }, Instant::now());
    }

    #[test]
    fn item3_the_resume_question_keeps_its_answer_keys_on_a_narrow_terminal() {
        let app = App::new("ws://s/ws", "me", Start::Join("xvfxnizihx".into()))
            .with_saved_seats(kept("xvfxnizihx"));
        let text = to_text(&app.render(40, 12, Instant::now()));
        assert!(text.contains("Resume room xvfxnizihx? [Y/n]"), "{text}");
        let wide = to_text(&app.render(80, 24, Instant::now()));
        assert!(
            wide.contains("Resume your game in room xvfxnizihx? [Y/n]"),
            "{wide}"
        );
    }

    #[test]
    fn item1_join_offers_the_kept_seat_and_yes_resumes_it() {
        let mut app =
            App::new("ws://s/ws", "me", Start::Join("r1".into())).with_saved_seats(kept("r1"));
        assert!(app.take_outbox().is_empty(), "asks before joining");
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(
            text.contains("Resume your game in room r1? [Y/n]"),
            "{text}"
        );
        app.on_key(key(KeyCode::Char('y')));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Resume {
                token: "tok9".into()
            }]
        );
        app.on_message(
            ServerMessage::Joined {
                room: "r1".into(),
                seat: 1,
                token: "tok9".into(),
            },
            Instant::now(),
        );
        assert!(
            app.notice()
                .unwrap()
                .text
                .starts_with("Back in your seat 1")
        );
    }

    #[test]
    fn item1_no_joins_anew_and_a_refused_token_is_forgotten() {
        let mut app =
            App::new("ws://s/ws", "me", Start::Join("r1".into())).with_saved_seats(kept("r1"));
        app.on_key(key(KeyCode::Char('n')));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::JoinRoom {
                seat: None,
                room: "r1".into(),
                name: "me".into()
            }]
        );
        let mut app =
            App::new("ws://s/ws", "me", Start::Join("r1".into())).with_saved_seats(kept("r1"));
        app.on_key(key(KeyCode::Enter));
        app.take_outbox();
        app.on_message(
            ServerMessage::Error {
                code: ErrorCode::BadToken,
                message: String::new(),
            },
            Instant::now(),
        );
        assert_eq!(
            app.take_seat_updates(),
            vec![SeatUpdate::Forget { room: "r1".into() }]
        );
        assert!(matches!(app.screen, Screen::Lobby));
    }

    #[test]
    fn item1_the_lobby_offers_a_kept_seat_once() {
        let mut app = App::new("ws://s/ws", "me", Start::Lobby).with_saved_seats(kept("r2"));
        app.take_outbox();
        rooms(&mut app, &["r1"]);
        assert!(app.offer().is_none());
        rooms(&mut app, &["r1", "r2"]);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(
            text.contains("Resume your game in room r2? [Y/n]"),
            "{text}"
        );
        app.on_key(key(KeyCode::Esc));
        assert!(app.take_outbox().is_empty());
        rooms(&mut app, &["r1", "r2"]);
        assert!(app.offer().is_none(), "declined once, not asked again");
        // Joining it from the list still asks.
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.offer().map(|o| o.room.as_str()), Some("r2"));
    }

    #[test]
    fn item1_seats_are_kept_when_taken_and_forgotten_when_the_game_ends() {
        let mut app = seated(1);
        assert_eq!(
            app.take_seat_updates(),
            vec![SeatUpdate::Keep {
                room: "r1".into(),
                seat: 1,
                token: "tok".into()
            }]
        );
        let mut over = snapshot(9, 0);
        over.status = RoomStatus::Finished;
        over.to_move = None;
        app.on_message(ServerMessage::Room(over), Instant::now());
        assert_eq!(
            app.take_seat_updates(),
            vec![SeatUpdate::Forget { room: "r1".into() }]
        );
    }

    #[test]
    fn item1_printed_commands_name_the_server_and_are_never_broken() {
        let mut app = seated(1);
        // The default server is left out; any other is named.
        assert_eq!(
            app.command("resume t"),
            "jchomp --server ws://s/ws resume t"
        );
        assert_eq!(
            App::new(crate::cli::DEFAULT_SERVER, "me", Start::Lobby).command("resume t"),
            "jchomp resume t"
        );
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(
            text.lines()
                .any(|l| l == "jchomp --server ws://s/ws resume tok"),
            "{text}"
        );
        let text = to_text(&app.render(30, 24, Instant::now()));
        assert!(!text.contains("resume tok"), "{text}");
        assert!(text.contains("resume command on quit"), "{text}");
        app.on_key(key(KeyCode::Char('q')));
        let hint = app.resume_hint().unwrap();
        assert!(
            hint.contains("\njchomp --server ws://s/ws resume tok\n"),
            "{hint}"
        );
    }

    #[test]
    fn item1_a_full_room_reads_as_sentences() {
        let mut app = App::new("ws://s/ws", "me", Start::Join("r1".into()));
        app.on_message(
            ServerMessage::Error {
                code: ErrorCode::RoomFull,
                message: "every seat is taken".into(),
            },
            Instant::now(),
        );
        assert_eq!(
            app.notice().unwrap().text,
            "That room is full: every seat is taken. Select it and press w to watch instead."
        );
    }
}
