//! Reviewing a replay: the hints of every position of a stored two-player game, asked for one
//! [`HintJob`] at a time (the position shown first), which mark the moves that threw away a win
//! or a tie and, with `?`, annotate the board shown.

use super::{App, Screen};
use crate::hint::{HintError, HintJob, Hints, Source};
use crate::review::{self, Blunder};
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::{Cell, Config, Position};

/// The review of a replay.
#[derive(Clone, Debug, Default)]
pub struct Review {
    config: Option<Config>,
    /// Each move with the position it was played in (empty unless the game has two players).
    moves: Vec<(Position, Cell)>,
    /// The hints of the position before each move, as they come.
    answers: Vec<Option<Result<Hints, HintError>>>,
    /// The key and the move of the analysis being waited for.
    waiting: Option<(u64, usize)>,
    /// Whether the board shown is annotated.
    pub(crate) show: bool,
}

impl Review {
    /// The review of `record` (nothing to review if it does not replay or has more than two
    /// players).
    pub(crate) fn of(record: &Record) -> Review {
        match review::moves(record) {
            Ok((config, moves)) => Review {
                config: Some(config),
                answers: vec![None; moves.len()],
                moves,
                waiting: None,
                show: false,
            },
            Err(_) => Review::default(),
        }
    }

    /// Whether the game can be reviewed (two players).
    pub(crate) fn offered(&self) -> bool {
        self.config.is_some_and(|c| c.players() == 2)
    }

    /// The hints of the position after `step` moves, once analysed.
    pub(crate) fn hints_at(&self, step: usize) -> Option<&Hints> {
        match self.answers.get(step) {
            Some(Some(Ok(h))) => Some(h),
            _ => None,
        }
    }

    /// Whether the position after `step` moves is still to be analysed.
    pub(crate) fn pending_at(&self, step: usize) -> bool {
        matches!(self.answers.get(step), Some(None))
    }

    /// The blunder of the move that led to the position after `step` moves, if it was one.
    pub(crate) fn blunder_at(&self, step: usize) -> Option<Blunder> {
        let i = step.checked_sub(1)?;
        let (_, cell) = self.moves.get(i)?;
        review::judge(self.hints_at(i)?, *cell)
    }

    /// Forgets the answers the engine gave while the classic database was being prepared, so
    /// that they are asked for again; whether there were any.
    pub(super) fn forget_prepared(&mut self) -> bool {
        let mut any = false;
        for slot in &mut self.answers {
            if matches!(slot, Some(Ok(h)) if h.source == Source::EngineWhileDatabasePrepares) {
                *slot = None;
                any = true;
            }
        }
        any
    }

    /// Whether every position has been analysed.
    pub(crate) fn done(&self) -> bool {
        self.answers.iter().all(Option::is_some)
    }

    /// The next position to analyse: the one shown, the one before it, then the others in
    /// order.
    fn next(&self, step: usize) -> Option<usize> {
        let open = |i: &usize| self.pending_at(*i);
        [step, step.wrapping_sub(1)]
            .into_iter()
            .find(open)
            .or_else(|| (0..self.answers.len()).find(open))
    }
}

impl App {
    /// Shows a stored game at `step` and starts reviewing its moves.
    pub(super) fn open_replay(&mut self, record: Record, step: usize, back: bool) {
        self.screen = Screen::Replay {
            review: Box::new(Review::of(&record)),
            step,
            record: Box::new(record),
            back,
        };
        self.next_review_job();
    }

    /// Asks for the analysis of the next position of the replay under review, if any.
    pub(super) fn next_review_job(&mut self) {
        let Screen::Replay { review, step, .. } = &mut self.screen else {
            return;
        };
        if review.waiting.is_some() {
            return;
        }
        let (Some(config), Some(i)) = (review.config, review.next(*step)) else {
            return;
        };
        self.hint_seq += 1;
        review.waiting = Some((self.hint_seq, i));
        self.hint_job = Some(HintJob {
            key: self.hint_seq,
            config,
            position: review.moves[i].0,
            limit: self.hint_limit,
            library: self.library.clone(),
        });
    }

    /// An answer for the replay under review: kept if it is the one waited for, then the next
    /// position is asked for.
    pub(super) fn on_review(&mut self, key: u64, result: Result<Hints, HintError>) {
        let Screen::Replay { review, .. } = &mut self.screen else {
            return;
        };
        let Some((waited, i)) = review.waiting else {
            return;
        };
        if waited != key {
            return;
        }
        review.waiting = None;
        if let Some(slot) = review.answers.get_mut(i) {
            *slot = Some(result);
        }
        self.next_review_job();
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::fixtures::{blundered, perfect};
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use std::time::Instant;

    fn replay(record: Record) -> App {
        let mut app = App::new("s", "me", Start::Replay(record)).with_hint_limit(None);
        run_hints(&mut app);
        app
    }

    fn screen_at(app: &mut App, step: usize) -> String {
        app.on_key(key(KeyCode::Home));
        for _ in 0..step {
            app.on_key(key(KeyCode::Right));
        }
        to_text(&app.render(80, 24, Instant::now()))
    }

    #[test]
    fn a_replay_marks_the_move_that_threw_away_the_win() {
        let mut app = replay(blundered());
        let text = screen_at(&mut app, 1);
        assert!(text.contains("Last: ann at 0,1 (move 1)"), "{text}");
        assert!(text.contains("?! blunder: threw away a win"), "{text}");
        for step in [0, 2, 3] {
            let text = screen_at(&mut app, step);
            assert!(!text.contains("?!"), "step {step}: {text}");
            assert!(!text.contains("reviewing"), "step {step}: {text}");
        }
        // `?` annotates the position shown, with its legend.
        let text = screen_at(&mut app, 0);
        assert!(!text.contains("half-moves to the end"), "{text}");
        app.on_key(key(KeyCode::Char('?')));
        let text = to_text(&app.render(80, 24, Instant::now()));
        // The poison keeps its symbol; 1,1 is the one winning move.
        assert!(text.contains(" 0  P  -3  -9  -9"), "{text}");
        assert!(text.contains(" 1 -3  +8  -9  -9"), "{text}");
        assert!(text.contains("half-moves to the end"), "{text}");
        assert!(text.contains("? hint"), "{text}");
    }

    #[test]
    fn a_replay_of_a_classic_game_is_reviewed_again_from_the_database_once_ready() {
        use jchomp_engine::classic::ClassicLibrary;
        let library = ClassicLibrary::with_box(None, 6, 6);
        let mut app = App::new("s", "me", Start::Replay(blundered()))
            .with_hint_limit(None)
            .with_classic_library(library.clone());
        run_hints(&mut app);
        app.on_key(key(KeyCode::Char('?')));
        // The position reviewed first (before the last move) asked for the database, which
        // then started; the engine answered.
        let text = screen_at(&mut app, 2);
        assert!(text.contains("preparing the classic database…"), "{text}");
        // Only the poison is left to eat: nothing is worth annotating.
        assert!(text.contains(" 0  P   .   .   ."), "{text}");
        library.wait().unwrap();
        app.on_tick(Instant::now());
        run_hints(&mut app);
        for step in 0..3 {
            let text = screen_at(&mut app, step);
            assert!(!text.contains("preparing"), "{text}");
            assert_eq!(text.contains("?! blunder"), step == 1, "{text}");
        }
    }

    #[test]
    fn a_perfect_replay_has_no_mark() {
        let mut app = replay(perfect());
        for step in 0..=8 {
            let text = screen_at(&mut app, step);
            assert!(!text.contains("?!"), "step {step}: {text}");
            assert!(!text.contains("blunder"), "step {step}: {text}");
        }
    }
}
