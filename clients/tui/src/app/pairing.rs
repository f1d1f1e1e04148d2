//! Quick pairing in the [`App`]: the "Play now" list of presets, the wait in a preset's pool
//! ([`SeekScreen`]), cancelling it, and the room a pairing seats the player in.

use super::{App, RoomScreen, Screen};
use crate::input::Action;
use crate::render_game::Link;
use crate::render_pairing::{self, PlayNowView, SeekView};
use crate::style::{Line, Style};
use jchomp_protocol::connection::describe_error;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, PresetInfo};
use std::time::Instant;

/// Where the player goes once a wait ends without a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterWait {
    /// Back to the lobby (the wait began there).
    Lobby,
    /// Out of the program (`jchomp play`, or `q`).
    Quit,
}

/// The wait in a quick-pairing pool.
#[derive(Clone, Debug)]
pub struct SeekScreen {
    /// The preset's name.
    pub preset: String,
    /// Whether bots may take the seats nobody took after the server's patience.
    pub bots: bool,
    /// The rating the server pairs by, once it said (`seeking`).
    pub rating: Option<i64>,
    /// Players waiting in the pool, this one included, as last told.
    pub waiting: Option<u32>,
    /// When the server put the player in the pool.
    pub since: Option<Instant>,
    /// Where Esc leads once the wait is over.
    pub(crate) then: AfterWait,
}

impl App {
    /// Asks to wait in `preset`'s pool; `then` says where a cancelled wait leads.
    pub(super) fn seek(&mut self, preset: String, bots: bool, then: AfterWait) {
        let screen = SeekScreen {
            preset,
            bots,
            rating: None,
            waiting: None,
            since: None,
            then,
        };
        let msg = self.seek_message(&screen);
        self.screen = Screen::Seeking(Box::new(screen));
        self.notice = None;
        self.send(msg);
    }

    /// The `seek` that puts the player in the pool `screen` waits in.
    pub(super) fn seek_message(&self, screen: &SeekScreen) -> ClientMessage {
        ClientMessage::Seek {
            preset: screen.preset.clone(),
            name: Some(self.name.clone()),
            bots: screen.bots,
        }
    }

    /// Opens the "Play now" list, asking the server for its presets and how many wait.
    pub(super) fn open_play_now(&mut self) {
        self.screen = Screen::PlayNow { bots: false };
        self.notice = None;
        self.send(ClientMessage::ListPresets);
    }

    /// A key in the "Play now" list: a number waits for that game, `b` allows bots or not,
    /// Esc goes back.
    pub(super) fn play_now_key(&mut self, action: Action) {
        let Screen::PlayNow { bots } = &mut self.screen else {
            return;
        };
        match action {
            Action::Choose(n) => match self.presets.get(n - 1) {
                Some(p) => {
                    let (preset, bots) = (p.name.clone(), *bots);
                    self.seek(preset, bots, AfterWait::Lobby);
                }
                None => self.say(format!("There is no game {n} in the list."), Style::Bad),
            },
            Action::AddBot => *bots = !*bots,
            Action::Refresh => self.send(ClientMessage::ListPresets),
            Action::Cancel => {
                self.notice = None;
                self.back_to_lobby();
            }
            _ => {}
        }
    }

    /// A key while waiting: Esc stops waiting (back where the wait began), `q` stops waiting
    /// and quits; a second `q`, or either while offline, goes at once.
    pub(super) fn seeking_key(&mut self, action: Action) {
        let Screen::Seeking(seek) = &self.screen else {
            return;
        };
        let then = match action {
            Action::Cancel => seek.then,
            Action::Quit => AfterWait::Quit,
            _ => return,
        };
        if self.link != Link::Online || (self.cancelling.is_some() && action == Action::Quit) {
            return self.wait_over(then, "You stopped waiting.".to_owned());
        }
        if self.cancelling.is_none() {
            self.send(ClientMessage::CancelSeek);
        }
        self.cancelling = Some(then);
    }

    /// The presets: kept for the "Play now" list, and the pool's count while waiting in it.
    pub(super) fn on_presets(&mut self, presets: Vec<PresetInfo>, bot_patience_secs: u64) {
        self.presets = presets;
        self.bot_patience_secs = Some(bot_patience_secs);
        if let Screen::Seeking(seek) = &mut self.screen
            && seek.since.is_some()
            && let Some(p) = self.presets.iter().find(|p| p.name == seek.preset)
        {
            seek.waiting = Some(p.waiting);
        }
    }

    /// The server put the player in the pool: its rating and count are shown, and the time
    /// waited counts from the first such answer (a wait resumed after a drop goes on).
    pub(super) fn on_seeking(&mut self, preset: String, rating: i64, waiting: u32, now: Instant) {
        let Screen::Seeking(seek) = &mut self.screen else {
            return;
        };
        seek.preset = preset;
        seek.rating = Some(rating);
        seek.waiting = Some(waiting);
        seek.since.get_or_insert(now);
    }

    /// The player no longer waits: where the cancel asked to go, or (the server ended the
    /// wait) back where the wait began.
    pub(super) fn on_seek_ended(&mut self, preset: &str) {
        let Screen::Seeking(seek) = &self.screen else {
            return;
        };
        if seek.preset != preset {
            return;
        }
        let words = format!("You stopped waiting for a {preset} game.");
        match self.cancelling.take() {
            Some(then) => self.wait_over(then, words),
            None => {
                let then = seek.then;
                self.wait_over(
                    then,
                    format!("The server ended the wait for a {preset} game."),
                );
            }
        }
    }

    /// Paired: the room screen waits for the seat's `joined` and the game's snapshot. A
    /// cancel that crossed the pairing is answered `forbidden`, which is then no news.
    pub(super) fn on_paired(&mut self, preset: &str, room: String) {
        self.late_cancel = self.cancelling.take().is_some();
        let text = if self.late_cancel {
            format!("Too late to cancel: you were paired for a {preset} game in room {room}.")
        } else {
            format!("Paired for a {preset} game in room {room}.")
        };
        self.screen = Screen::Room(Box::new(RoomScreen::new(Some(room))));
        self.say(text, Style::Good);
    }

    /// A refusal that concerns the wait, handled here (returns true): a seek refused (an
    /// unknown preset, in the server's words) ends it; a cancel that came too late is no news.
    pub(super) fn pairing_error(&mut self, code: ErrorCode, message: &str) -> bool {
        if std::mem::take(&mut self.late_cancel) && code == ErrorCode::Forbidden {
            return true;
        }
        let Screen::Seeking(seek) = &self.screen else {
            return false;
        };
        let words = describe_error(code, message);
        match self.cancelling.take() {
            Some(then) => self.wait_over(then, words),
            None if seek.then == AfterWait::Quit => {
                self.failure = Some(words);
                self.quit = true;
            }
            None => self.wait_over(AfterWait::Lobby, words),
        }
        true
    }

    /// The wait is over without a game: back to the lobby with `words`, or out with them.
    fn wait_over(&mut self, then: AfterWait, words: String) {
        self.cancelling = None;
        match then {
            AfterWait::Lobby => {
                self.back_to_lobby();
                self.say(words, Style::Plain);
            }
            AfterWait::Quit => {
                self.farewell = Some(words);
                self.quit = true;
            }
        }
    }

    /// The "Play now" list as drawn.
    pub(super) fn render_play_now(&self, bots: bool, width: usize) -> Vec<Line> {
        render_pairing::render_play_now(
            &PlayNowView {
                name: &self.name,
                presets: &self.presets,
                bots,
                bot_patience_secs: self.bot_patience_secs,
                notice: self.notice.as_ref(),
            },
            width,
        )
    }

    /// The waiting screen as drawn at `now`.
    pub(super) fn render_seeking(
        &self,
        seek: &SeekScreen,
        width: usize,
        now: Instant,
    ) -> Vec<Line> {
        let title = self
            .presets
            .iter()
            .find(|p| p.name == seek.preset)
            .map(|p| p.title.as_str());
        render_pairing::render_seeking(
            &SeekView {
                seek,
                title,
                name: &self.name,
                bot_patience_secs: self.bot_patience_secs,
                waited: seek.since.map(|t| now.saturating_duration_since(t)),
                cancelling: self.cancelling.is_some(),
                notice: self.notice.as_ref(),
            },
            width,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::saved_seats::SeatUpdate;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::wire::{ClientMessage, ErrorCode, PresetInfo, ServerMessage};
    use std::time::{Duration, Instant};

    fn presets(duel_waiting: u32) -> ServerMessage {
        let preset = |name: &str, title: &str, waiting| PresetInfo {
            name: name.into(),
            title: title.into(),
            config: jchomp_testkit::config_json("7x7 eat 1x2 poison 0,0"),
            waiting,
        };
        ServerMessage::Presets {
            presets: vec![
                preset("duel", "JChomp, 2 players, 7×7", duel_waiting),
                preset("blitz", "JChomp, 2 players, 6×6, 10 s a move", 0),
            ],
            bot_patience_secs: 20,
        }
    }

    fn seek(preset: &str, bots: bool) -> ClientMessage {
        ClientMessage::Seek {
            preset: preset.into(),
            name: Some("me".into()),
            bots,
        }
    }

    fn seeking(preset: &str, waiting: u32) -> ServerMessage {
        ServerMessage::Seeking {
            preset: preset.into(),
            rating: 1500,
            waiting,
        }
    }

    fn ended(preset: &str) -> ServerMessage {
        ServerMessage::SeekEnded {
            preset: preset.into(),
        }
    }

    fn text(app: &App, now: Instant) -> String {
        to_text(&app.render(80, 24, now))
    }

    /// `jchomp play duel --bots`, told it waits in the pool at `t0`.
    fn waiting(t0: Instant) -> App {
        let mut app = App::new(
            "ws://s/ws",
            "me",
            Start::Play {
                preset: "duel".into(),
                bots: true,
            },
        );
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::ListPresets, seek("duel", true)]
        );
        app.on_message(presets(0), t0);
        app.on_message(seeking("duel", 2), t0);
        app
    }

    #[test]
    fn the_wait_shows_the_rating_the_count_the_time_and_the_bots() {
        let t0 = Instant::now();
        let mut app = waiting(t0);
        let screen = text(&app, t0 + Duration::from_secs(7));
        for want in [
            "Waiting for a duel game: JChomp, 2 players, 7×7",
            "Paired by rating  1500",
            "Waiting now       2 (you included)",
            "Waited            0:07",
            "fill the empty seats after 20 s",
            "Esc or q stop waiting",
        ] {
            assert!(screen.contains(want), "{want:?} in\n{screen}");
        }
        // The patience has run out: bots may come with the next wave.
        let screen = text(&app, t0 + Duration::from_secs(65));
        assert!(screen.contains("Waited            1:05"), "{screen}");
        assert!(screen.contains("at the next pairing"), "{screen}");
        // The count follows the pool: the list is asked for again now and then.
        app.on_tick(t0);
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListPresets]);
        app.on_tick(t0 + Duration::from_secs(1));
        assert!(app.take_outbox().is_empty(), "not every tick");
        app.on_message(presets(3), t0);
        let screen = text(&app, t0);
        assert!(screen.contains("3 (you included)"), "{screen}");
    }

    #[test]
    fn esc_or_q_stops_waiting_once_the_server_says_so_and_ends_with_words() {
        for k in [KeyCode::Esc, KeyCode::Char('q')] {
            let t0 = Instant::now();
            let mut app = waiting(t0);
            app.on_key(key(k));
            assert_eq!(app.take_outbox(), vec![ClientMessage::CancelSeek]);
            assert!(!app.quit(), "it waits for seek_ended");
            assert!(text(&app, t0).contains("Stopping the wait…"));
            app.on_message(ended("duel"), t0);
            assert!(app.quit());
            assert_eq!(
                app.farewell().as_deref(),
                Some("You stopped waiting for a duel game.")
            );
            assert_eq!(app.failure(), None);
        }
        // A second q does not wait for the server.
        let mut app = waiting(Instant::now());
        app.on_key(key(KeyCode::Char('q')));
        app.on_key(key(KeyCode::Char('q')));
        assert!(app.quit());
        assert_eq!(app.take_outbox(), vec![ClientMessage::CancelSeek]);
        // Nor does one with no connection to tell.
        let mut app = waiting(Instant::now());
        app.on_link(Link::Reconnecting);
        app.on_key(key(KeyCode::Esc));
        assert!(app.quit());
        assert!(app.take_outbox().is_empty());
    }

    #[test]
    fn a_pairing_enters_the_room_and_keeps_the_seat_for_resume() {
        let t0 = Instant::now();
        let mut app = waiting(t0);
        assert_eq!(app.rejoin(), seek("duel", true), "a drop seeks again");
        app.on_message(
            ServerMessage::Paired {
                preset: "duel".into(),
                room: "r1".into(),
            },
            t0,
        );
        assert_eq!(app.room().unwrap().room.as_deref(), Some("r1"));
        assert!(text(&app, t0).contains("Paired for a duel game in room r1."));
        app.on_message(
            ServerMessage::Joined {
                room: "r1".into(),
                seat: 1,
                token: "tok".into(),
            },
            t0,
        );
        assert!(matches!(
            &app.take_seat_updates()[..],
            [SeatUpdate::Keep { room, .. }] if room == "r1"
        ));
        app.on_message(ServerMessage::Room(snapshot(3, 0)), t0);
        let screen = text(&app, t0);
        assert!(screen.contains("me to move"), "{screen}");
        assert_eq!(
            app.rejoin(),
            ClientMessage::Resume {
                token: "tok".into()
            }
        );
    }

    #[test]
    fn a_cancel_that_crossed_the_pairing_leaves_the_player_in_the_game() {
        let t0 = Instant::now();
        let mut app = waiting(t0);
        app.on_key(key(KeyCode::Esc));
        app.take_outbox();
        app.on_message(
            ServerMessage::Paired {
                preset: "duel".into(),
                room: "r1".into(),
            },
            t0,
        );
        app.on_message(
            ServerMessage::Error {
                code: ErrorCode::Forbidden,
                message: "too late: you were paired (see paired)".into(),
            },
            t0,
        );
        assert!(!app.quit());
        assert_eq!(app.room().unwrap().room.as_deref(), Some("r1"));
        assert!(app.notice().unwrap().text.starts_with("Too late to cancel"));
        app.on_message(ServerMessage::Room(snapshot(3, 0)), t0);
        assert!(app.room().unwrap().state.is_some());
    }

    #[test]
    fn an_unknown_preset_is_refused_in_the_servers_words() {
        let refusal = || ServerMessage::Error {
            code: ErrorCode::BadRequest,
            message: "no preset \"nope\"; the presets are duel, blitz".into(),
        };
        let mut app = App::new(
            "ws://s/ws",
            "me",
            Start::Play {
                preset: "nope".into(),
                bots: false,
            },
        );
        app.on_message(refusal(), Instant::now());
        assert!(app.quit());
        let why = app.failure().unwrap();
        assert!(
            why.contains("no preset \"nope\"; the presets are duel, blitz"),
            "{why}"
        );
        assert_eq!(app.farewell(), None, "said once, as the failure");
        // From the lobby: back to it, with the same words.
        let mut app = App::new("ws://s/ws", "me", Start::Lobby);
        app.on_key(key(KeyCode::Char('p')));
        app.on_message(presets(0), Instant::now());
        app.on_key(key(KeyCode::Char('1')));
        app.on_message(refusal(), Instant::now());
        assert!(matches!(app.screen, Screen::Lobby));
        assert!(!app.quit());
        assert!(app.notice().unwrap().text.contains("the presets are duel"));
    }

    #[test]
    fn the_lobby_plays_now_with_one_key_and_esc_goes_back() {
        let t0 = Instant::now();
        let mut app = App::new("ws://s/ws", "me", Start::Lobby);
        assert!(text(&app, t0).contains("p play now"));
        app.take_outbox();
        app.on_key(key(KeyCode::Char('p')));
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListPresets]);
        app.on_message(presets(1), t0);
        let screen = text(&app, t0);
        assert!(
            screen.contains("  1 duel    1 waiting  JChomp, 2 players, 7×7"),
            "{screen}"
        );
        assert!(
            screen.contains("  2 blitz   0 waiting  JChomp, 2 players, 6×6"),
            "{screen}"
        );
        assert!(screen.contains("Bots: people only"), "{screen}");
        app.on_key(key(KeyCode::Char('7')));
        assert_eq!(
            app.notice().unwrap().text,
            "There is no game 7 in the list."
        );
        app.on_key(key(KeyCode::Char('b')));
        assert!(text(&app, t0).contains("Bots: bots of about your level"));
        app.on_key(key(KeyCode::Char('2')));
        assert_eq!(app.take_outbox(), vec![seek("blitz", true)]);
        app.on_message(seeking("blitz", 1), t0);
        let screen = text(&app, t0);
        assert!(
            screen.contains("Esc stop waiting (back to the lobby)"),
            "{screen}"
        );
        app.on_key(key(KeyCode::Esc));
        assert_eq!(app.take_outbox(), vec![ClientMessage::CancelSeek]);
        app.on_message(ended("blitz"), t0);
        assert!(matches!(app.screen, Screen::Lobby));
        assert!(!app.quit());
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
        assert_eq!(
            app.notice().unwrap().text,
            "You stopped waiting for a blitz game."
        );
        // Esc in the list goes back too.
        app.on_key(key(KeyCode::Char('p')));
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(app.screen, Screen::Lobby));
    }

    #[test]
    fn a_wait_the_server_ends_goes_back_where_it_began() {
        let mut app = App::new("ws://s/ws", "me", Start::Lobby);
        app.on_key(key(KeyCode::Char('p')));
        app.on_message(presets(0), Instant::now());
        app.on_key(key(KeyCode::Char('1')));
        app.on_message(seeking("duel", 1), Instant::now());
        app.on_message(ended("blitz"), Instant::now());
        assert!(
            matches!(app.screen, Screen::Seeking(_)),
            "another pool's end"
        );
        app.on_message(ended("duel"), Instant::now());
        assert!(matches!(app.screen, Screen::Lobby));
        assert!(
            app.notice()
                .unwrap()
                .text
                .contains("The server ended the wait")
        );
    }
}
