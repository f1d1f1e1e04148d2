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
