//! Hints in the client: switching them on and off, asking for an analysis of each new
//! position ([`HintJob`]) and showing the answer that matches the position on screen.

use super::{App, Screen};
use crate::hint::{HintError, HintJob, Hints};
use crate::style::Style;

impl App {
    pub(super) fn toggle_hints(&mut self) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        r.hints_on = !r.hints_on;
        self.refresh_hints();
    }

    /// Asks for the hints of the current position when they are switched on (see
    /// [`App::take_hint_job`]); older answers are then ignored.
    pub(super) fn refresh_hints(&mut self) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        r.hints = None;
        r.hints_waiting = None;
        self.hint_job = None;
        if !r.hints_on {
            return;
        }
        let Some(state) = &r.state else {
            return;
        };
        self.hint_seq += 1;
        r.hints_waiting = Some(self.hint_seq);
        self.hint_job = Some(HintJob {
            key: self.hint_seq,
            config: state.config,
            position: state.position(),
            limit: self.hint_limit,
        });
    }

    /// Takes the analysis to run for the hints, if one is wanted. The runner computes it off
    /// the screen's loop and hands the answer to [`App::on_hints`].
    pub fn take_hint_job(&mut self) -> Option<HintJob> {
        self.hint_job.take()
    }

    /// The answer to a [`HintJob`]: shown if it is for the current position, ignored if not.
    pub fn on_hints(&mut self, key: u64, result: Result<Hints, HintError>) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        if r.hints_waiting != Some(key) {
            return;
        }
        r.hints_waiting = None;
        match result {
            Ok(h) => r.hints = Some(h),
            Err(e) => {
                r.hints_on = false;
                let text = format!("No hints: {e}.");
                self.say(text, Style::Bad);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::wire::Moved;
    use jchomp_protocol::wire::{RoomStatus, ServerMessage};
    use std::time::Instant;

    #[test]
    fn the_hint_key_overlays_the_engines_verdicts_and_follows_the_game() {
        fn key_to(app: &mut App, code: KeyCode) {
            app.on_key(key(code));
        }
        let mut app = seated(0);
        let mut snap = snapshot(3, 0);
        snap.config.cols = 4;
        app.on_message(ServerMessage::Room(snap), Instant::now());
        app.on_key(key(KeyCode::Char('?')));
        assert!(app.room().unwrap().hints.is_none());
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("hint: analysing…"), "{text}");
        run_hints(&mut app);
        let hints = app.room().unwrap().hints.clone().unwrap();
        assert_eq!(hints.selections.len(), 16);
        let text = to_text(&app.render(80, 24, Instant::now()));
        // The cursor sits on the poison: its verdict is in the panel, the others on the board.
        assert!(text.contains(" 0 [P]W"), "{text}");
        assert!(text.contains("hint: loses in 1"), "{text}");
        key_to(&mut app, KeyCode::Down);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains(" 0 L1 W"), "{text}");
        app.on_message(
            ServerMessage::Moved(Moved {
                room: "r1".into(),
                version: 4,
                seat: 0,
                row: 3,
                col: 3,
                to_move: Some(1),
                status: RoomStatus::Playing,
                result: None,
            }),
            Instant::now(),
        );
        // An answer for the old position is ignored; the new one is asked for.
        app.on_hints(1, Ok(hints));
        assert!(app.room().unwrap().hints.is_none());
        run_hints(&mut app);
        assert_eq!(
            app.room().unwrap().hints.as_ref().unwrap().selections.len(),
            15
        );
        app.on_key(key(KeyCode::Char('?')));
        assert!(app.room().unwrap().hints.is_none());
    }

    #[test]
    fn hints_explain_why_they_are_missing() {
        let mut app = seated(0);
        let mut snap = snapshot(7, 0);
        snap.config.players = 3;
        snap.seats.push(seat("third"));
        app.on_message(ServerMessage::Room(snap), Instant::now());
        app.on_key(key(KeyCode::Char('?')));
        run_hints(&mut app);
        assert!(app.room().unwrap().hints.is_none());
        assert!(!app.room().unwrap().hints_on);
        assert_eq!(
            app.notice().unwrap().text,
            "No hints: hints are available in two-player games only."
        );
    }
}
