//! One search on a thread of its own: the bot chooses with a fresh stop flag, raised by `stop`,
//! `quit` or the time the `go` allots; the player comes back to the reader, then the search's
//! `info` line and its `bestmove` are written.

use super::allowance;
use super::output::Output;
use crate::jep::{Go, Info, Reply};
use jchomp_engine::player::Player;
use jchomp_engine::search::Budget;
use jchomp_rules::{Cell, Config, Position};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What a search is asked.
pub(crate) struct Request {
    /// The bot, handed back when the search ends (unless it panicked).
    pub player: Box<dyn Player>,
    /// The game's configuration.
    pub config: Config,
    /// The position, with a seat to move.
    pub position: Position,
    /// The limits of this move.
    pub go: Go,
    /// The bot's own budget, restored after a move that replaced it.
    pub own_budget: Option<Budget>,
}

/// A search under way.
pub(crate) struct Running {
    stop: Arc<AtomicBool>,
    back: Receiver<Option<Box<dyn Player>>>,
    thread: JoinHandle<()>,
}

/// A player that has been asked for a move, with what it found.
type Back = Option<Box<dyn Player>>;

impl Running {
    /// Starts the search of `request`, writing its answer to `out`.
    pub(crate) fn start(mut request: Request, out: Output) -> Running {
        let stop = Arc::new(AtomicBool::new(false));
        request.player.set_stop(Arc::clone(&stop));
        let (send_back, back) = mpsc::channel();
        let flag = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            let (player, answer) = search(request, &flag);
            // The player is back before the runner can read `bestmove` and send the next `go`.
            let _ = send_back.send(player);
            out.send(&Reply::Info(answer.info));
            for note in answer.notes {
                out.say(note);
            }
            out.send(&Reply::BestMove(answer.cell));
        });
        Running { stop, back, thread }
    }

    /// Asks the search to answer now with its best so far.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The player, if the search has answered (`Ok(None)`: the bot panicked and is gone);
    /// otherwise the search, still running.
    pub(crate) fn try_finish(self) -> Result<Back, Running> {
        match self.back.try_recv() {
            Ok(player) => Ok(self.join(player)),
            Err(TryRecvError::Empty) => Err(self),
            Err(TryRecvError::Disconnected) => Ok(self.join(None)),
        }
    }

    /// Stops the search, waits for its answer and returns the player.
    pub(crate) fn finish(self) -> Back {
        self.stop();
        let player = self.back.recv().ok().flatten();
        self.join(player)
    }

    /// Waits for the thread to write its answer.
    fn join(self, player: Back) -> Back {
        let _ = self.thread.join();
        player
    }
}

/// What a search answers: its move, its `info` line and notes for `info string` lines.
struct Answer {
    cell: Cell,
    info: Info,
    notes: Vec<String>,
}

/// Runs the search on this thread: arms the time limit, replaces the budget for this move if
/// asked, and asks the bot.
fn search(request: Request, stop: &Arc<AtomicBool>) -> (Back, Answer) {
    let Request {
        mut player,
        config,
        position,
        go,
        own_budget,
    } = request;
    let started = Instant::now();
    let _alarm = allowance::allotted(&go).map(|after| Alarm::set(after, Arc::clone(stop)));
    let mut notes = Vec::new();
    let replaced = match allowance::budget(&go) {
        Some(budget) if player.set_budget(budget) => true,
        Some(budget) => {
            let kind = match budget {
                Budget::Depth(_) => "depth",
                Budget::Nodes(_) | Budget::Time(_) => "node",
            };
            notes.push(format!(
                "this bot has no {kind} budget: {budget} is ignored"
            ));
            false
        }
        None => false,
    };
    let chosen = catch_unwind(AssertUnwindSafe(|| player.choose(&config, &position)));
    let elapsed = started.elapsed();
    if let (true, Some(own)) = (replaced, own_budget) {
        player.set_budget(own);
    }
    let searched = chosen.as_ref().ok().and_then(|_| player.last_search());
    let (cell, back) = match chosen {
        Ok(Some(cell)) if valid(&config, &position, cell) => (cell, Some(player)),
        Ok(chose) => {
            notes.push(format!(
                "error: the bot chose {chose:?}, not a valid selection"
            ));
            (any_selection(&config, &position), Some(player))
        }
        Err(_) => {
            notes.push("error: the bot panicked; a new one plays from the next move".into());
            (any_selection(&config, &position), None)
        }
    };
    let ms = elapsed.as_millis() as u64;
    let info = Info {
        time: Some(ms),
        depth: searched.and_then(|s| s.depth),
        nodes: searched.map(|s| s.nodes),
        nps: searched
            .filter(|_| ms > 0)
            .map(|s| s.nodes.saturating_mul(1000) / ms),
        ..Info::default()
    };
    (back, Answer { cell, info, notes })
}

/// Whether `cell` is a valid selection at `position`.
fn valid(config: &Config, position: &Position, cell: Cell) -> bool {
    position
        .check(config, i64::from(cell.row), i64::from(cell.col))
        .is_ok()
}

/// A valid selection without poison if there is one (the answer of a bot that failed).
fn any_selection(config: &Config, position: &Position) -> Cell {
    let first = position.safe_or_any_selections(config).iter().next();
    first.map_or(Cell::new(0, 0), Cell::from_index)
}

/// Raises a stop flag after a time, unless dropped first.
struct Alarm {
    /// Dropped with the alarm, which wakes its thread to end.
    _cancel: mpsc::Sender<()>,
}

impl Alarm {
    /// Raises `flag` once `after` has passed.
    fn set(after: Duration, flag: Arc<AtomicBool>) -> Alarm {
        let (cancel, cancelled) = mpsc::channel::<()>();
        thread::spawn(move || {
            if cancelled.recv_timeout(after) == Err(RecvTimeoutError::Timeout) {
                flag.store(true, Ordering::Relaxed);
            }
        });
        Alarm { _cancel: cancel }
    }
}
