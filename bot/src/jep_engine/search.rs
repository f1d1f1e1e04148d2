//! The searches of an engine, on one thread kept for them ([`Searcher`]): the bot chooses with a
//! fresh stop flag, raised by `stop`, `quit` or the time the `go` allots (one alarm thread, also
//! kept); the player comes back to the reader, then the search's `info` line and its `bestmove`
//! are written. Keeping the two threads spares every move two thread starts.

use super::allowance;
use super::output::Output;
use crate::jep::{Go, Info, Reply};
use jchomp_engine::player::Player;
use jchomp_engine::search::Budget;
use jchomp_rules::{Cell, Config, Position};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Instant;

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
    back: Receiver<Back>,
    written: Receiver<()>,
}

/// A player that has been asked for a move, with what it found.
type Back = Option<Box<dyn Player>>;

/// One search for the search thread: the request, its stop flag, and where the player and the
/// news that its answer is written go.
struct Job {
    request: Request,
    stop: Arc<AtomicBool>,
    back: Sender<Back>,
    written: Sender<()>,
}

/// The thread that runs the engine's searches, one at a time, and the alarm that stops them.
pub(crate) struct Searcher {
    jobs: Sender<Job>,
}

impl Searcher {
    /// Starts the search thread and its alarm; searches write their answers to `out`. Both
    /// threads end once the searcher is dropped.
    pub(crate) fn new(out: Output) -> Searcher {
        let (jobs, queue) = mpsc::channel::<Job>();
        thread::spawn(move || {
            let alarm = Alarm::start();
            for job in queue {
                let (player, answer) = search(job.request, &job.stop, &alarm);
                // The player is back before the runner can read `bestmove` and send the next
                // `go`.
                let _ = job.back.send(player);
                let mut replies = vec![Reply::Info(answer.info)];
                replies.extend(answer.notes.into_iter().map(|note| {
                    Reply::Info(Info {
                        string: Some(note),
                        ..Info::default()
                    })
                }));
                replies.push(Reply::BestMove(answer.cell));
                out.send_all(&replies);
                let _ = job.written.send(());
            }
        });
        Searcher { jobs }
    }

    /// Starts the search of `request`.
    pub(crate) fn start(&self, mut request: Request) -> Running {
        let stop = Arc::new(AtomicBool::new(false));
        request.player.set_stop(Arc::clone(&stop));
        let (back, back_rx) = mpsc::channel();
        let (written, written_rx) = mpsc::channel();
        let job = Job {
            request,
            stop: Arc::clone(&stop),
            back,
            written,
        };
        // The thread ends only when the searcher is dropped: a failed send drops the job, and
        // the search reads as one whose bot is gone.
        let _ = self.jobs.send(job);
        Running {
            stop,
            back: back_rx,
            written: written_rx,
        }
    }
}

impl Running {
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

    /// Waits for the search thread to write its answer.
    fn join(self, player: Back) -> Back {
        let _ = self.written.recv();
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
fn search(request: Request, stop: &Arc<AtomicBool>, alarm: &Alarm) -> (Back, Answer) {
    let Request {
        mut player,
        config,
        position,
        go,
        own_budget,
    } = request;
    let started = Instant::now();
    let _armed = allowance::allotted(&go).map(|after| alarm.arm(started + after, stop));
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

/// The alarm of the searches: one thread that raises the armed search's stop flag at its
/// deadline.
struct Alarm {
    state: Arc<(Mutex<Armed>, Condvar)>,
}

/// What the alarm waits for.
#[derive(Default)]
struct Armed {
    /// The deadline and the flag it raises; `None` when disarmed.
    at: Option<(Instant, Arc<AtomicBool>)>,
    /// The alarm is dropped: its thread ends.
    done: bool,
}

impl Alarm {
    /// Starts the alarm's thread.
    fn start() -> Alarm {
        let state = Arc::new((Mutex::new(Armed::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        thread::spawn(move || ring(&shared));
        Alarm { state }
    }

    /// Raises `flag` at `at` unless the returned guard is dropped first.
    fn arm(&self, at: Instant, flag: &Arc<AtomicBool>) -> Disarm<'_> {
        self.set(Some((at, Arc::clone(flag))));
        Disarm(self)
    }

    fn set(&self, at: Option<(Instant, Arc<AtomicBool>)>) {
        let (lock, wake) = &*self.state;
        lock.lock().unwrap_or_else(PoisonError::into_inner).at = at;
        wake.notify_one();
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        let (lock, wake) = &*self.state;
        lock.lock().unwrap_or_else(PoisonError::into_inner).done = true;
        wake.notify_one();
    }
}

/// Disarms its alarm when dropped.
struct Disarm<'a>(&'a Alarm);

impl Drop for Disarm<'_> {
    fn drop(&mut self) {
        self.0.set(None);
    }
}

/// The alarm's thread: waits for a deadline and raises its flag, until the alarm is dropped.
fn ring(state: &(Mutex<Armed>, Condvar)) {
    let (lock, wake) = state;
    let mut armed = lock.lock().unwrap_or_else(PoisonError::into_inner);
    while !armed.done {
        armed = match &armed.at {
            None => wake.wait(armed).unwrap_or_else(PoisonError::into_inner),
            Some((at, flag)) => {
                let now = Instant::now();
                if now >= *at {
                    flag.store(true, Ordering::Relaxed);
                    armed.at = None;
                    continue;
                }
                let left = *at - now;
                wake.wait_timeout(armed, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
        };
    }
}
