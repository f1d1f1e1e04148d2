//! Hints in the client: switching them on and off (two-player rooms only), asking for an
//! analysis of each new position ([`HintJob`]), showing the answer that matches the position
//! on screen, and asking again once the classic database it was waiting for is ready.

use super::{App, Screen};
use crate::hint::{HintError, HintJob, Hints, Source};
use crate::style::Style;
use jchomp_engine::classic::Availability;

impl App {
    pub(super) fn toggle_hints(&mut self) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        if r.state.as_ref().is_some_and(|s| s.config.players() != 2) {
            r.hints_on = false;
            self.say(HintError::Players.refusal(), Style::Bad);
            return;
        }
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
        // Nothing to analyse before the game starts or after it ends; the hints stay on.
        let Some(state) = r
            .state
            .as_ref()
            .filter(|s| s.position().to_move().is_some())
        else {
            return;
        };
        self.hint_seq += 1;
        r.hints_waiting = Some(self.hint_seq);
        self.hint_job = Some(HintJob {
            key: self.hint_seq,
            config: state.config,
            position: state.position(),
            limit: self.hint_limit,
            library: self.library.clone(),
        });
    }

    /// Takes the analysis to run for the hints, if one is wanted. The runner computes it off
    /// the screen's loop and hands the answer to [`App::on_hints`].
    pub(crate) fn take_hint_job(&mut self) -> Option<HintJob> {
        self.hint_job.take()
    }

    /// The answer to a [`HintJob`]: shown if it is for the current position (or kept for the
    /// replay under review), ignored if not.
    pub(crate) fn on_hints(&mut self, key: u64, result: Result<Hints, HintError>) {
        if matches!(self.screen, Screen::Replay { .. }) {
            self.on_review(key, result);
            return;
        }
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
                self.say(e.refusal(), Style::Bad);
            }
        }
    }

    /// Hints given by the engine while the classic database was prepared are asked for again
    /// once it is ready (in a room, and in a replay under review).
    pub(super) fn hints_tick(&mut self) {
        let ready = self
            .library
            .as_ref()
            .is_some_and(|l| matches!(l.availability(), Availability::Ready(_)));
        if !ready {
            return;
        }
        let (room, replay) = match &mut self.screen {
            Screen::Room(r) => (
                r.hints
                    .as_ref()
                    .is_some_and(|h| h.source == Source::EngineWhileDatabasePrepares),
                false,
            ),
            Screen::Replay { review, .. } => (false, review.forget_prepared()),
            _ => (false, false),
        };
        if room {
            self.refresh_hints();
        }
        if replay {
            self.next_review_job();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::rules::Cell;
    use jchomp_protocol::wire::ServerMessage;
    use jchomp_testkit::fixtures::{MovedFixture, moved, seat};
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
        // The cursor starts on the first safe cell: its verdict is in the panel, the others
        // on the board, a cell apart; the poison keeps its symbol. (Was `W…` and `L1 W`, then
        // `[P]+16+16`: 15 cells to eat one by one.)
        assert!(text.contains(" 0  P  [#] +16 +16"), "{text}");
        assert!(text.contains("hint: wins in 16"), "{text}");
        assert!(
            text.contains("half-moves to the end if taken: +N win, -N loss"),
            "{text}"
        );
        key_to(&mut app, KeyCode::Down);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains(" 0  P  +16 +16 +16"), "{text}");
        assert!(text.contains(" 1 +16 [#] +16 +16"), "{text}");
        app.on_message(
            ServerMessage::Moved(moved("r1", 4, 0, (3, 3))),
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
        snap.seats.push(Some(seat("third")));
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

    #[test]
    fn the_end_of_the_game_is_told_rather_than_a_missing_hint() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Char('?')));
        app.on_message(
            ServerMessage::Moved(moved("r1", 4, 0, (0, 0)).poisoned()),
            Instant::now(),
        );
        assert!(app.take_hint_job().is_none());
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("You ate poison and lost;"), "{text}");
        assert!(!text.contains("No hints"), "{text}");
        assert!(app.room().unwrap().hints_on);
    }

    #[test]
    fn item5_a_board_too_large_to_analyse_does_not_offer_hints() {
        let mut app = seated(0);
        let mut snap = snapshot(7, 0);
        snap.config = jchomp_testkit::timed_config_json("15x15 eat 2x2 poison 0,0", 30_000);
        app.on_message(ServerMessage::Room(snap), Instant::now());
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(!text.contains("? hint"), "{text}");
        // The standard classic game is answered by the database at any size.
        let mut snap = snapshot(8, 0);
        snap.config = jchomp_testkit::timed_config_json("15x15 variant classic poison 0,0", 30_000);
        app.on_message(ServerMessage::Room(snap), Instant::now());
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("? hint"), "{text}");
    }

    #[test]
    fn item5_a_three_player_room_does_not_offer_hints() {
        let mut app = seated(0);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("0-9 row,col  ? hint  L leave"), "{text}");
        let mut snap = snapshot(7, 0);
        snap.config.players = 3;
        snap.seats.push(Some(seat("third")));
        app.on_message(ServerMessage::Room(snap), Instant::now());
        let text = to_text(&app.render(80, 24, Instant::now()));
        let footer = text.lines().last().unwrap();
        assert_eq!(
            footer,
            "arrows/hjkl move  Enter eat  0-9 row,col  L leave  q quit"
        );
        assert!(!text.contains('?'), "{text}");
        // The key does nothing but say why; no analysis is asked for.
        app.on_key(key(KeyCode::Char('?')));
        assert!(app.take_hint_job().is_none());
    }

    #[test]
    fn classic_rooms_take_the_databases_annotations_once_it_is_ready() {
        use crate::classic_db;
        use jchomp_engine::classic::{ClassicLibrary, shape_of};
        use jchomp_testkit::timed_config_json;
        let library = ClassicLibrary::with_box(None, 6, 6);
        let mut app = seated(0).with_classic_library(library.clone());
        let mut snap = snapshot(3, 0);
        snap.config = timed_config_json("6x6 variant classic poison 0,0", 30_000);
        app.on_message(ServerMessage::Room(snap), Instant::now());
        app.on_key(key(KeyCode::Char('?')));
        run_hints(&mut app);
        // Asking started the database; meanwhile the engine annotates, and the screen says so.
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("preparing the classic database…"), "{text}");
        let from_engine = app.room().unwrap().hints.clone().unwrap();
        let db = library.wait().unwrap();
        app.on_tick(Instant::now());
        run_hints(&mut app);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(!text.contains("preparing"), "{text}");
        let hints = app.room().unwrap().hints.clone().unwrap();
        let state = app.room().unwrap().state.clone().unwrap();
        let want = classic_db::from_db(&db, &state.config, &state.position()).unwrap();
        assert_eq!(hints, want);
        assert_eq!(hints.selections, from_engine.selections);
        assert!(
            db.analyze(&shape_of(state.position().uneaten()).unwrap())
                .is_some()
        );
        // The cursor's selection covers the whole board; the annotations show through it and
        // the selected cell keeps its brackets.
        let row = |r: u8| {
            let mut line = format!("{r:>2} ");
            for c in 0..6 {
                line.push_str(
                    &crate::render_hints::cell(hints.verdict(Cell::new(r, c)).unwrap()).0,
                );
            }
            line.trim_end().to_owned()
        };
        assert!(text.contains(&row(3)), "{}\n{text}", row(3));
        assert!(text.contains(" 0  P  [#]"), "{text}");
        assert!(text.contains("hint: loses in 3 half-moves (-3)"), "{text}");
    }
}
