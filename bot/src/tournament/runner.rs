//! The worker pool: `K` threads take game indices in order, play them, and send them back; the
//! caller's thread receives them and hands them on strictly in index order, so outputs and
//! standings never depend on the number of threads or their timing. Each worker keeps a state
//! of its own from game to game (a tournament's engines), dropped when the worker ends.

use super::play::Clock;
use super::watchdog::Watchdog;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How far workers may run ahead of the first game not yet handed on.
const WINDOW: u64 = 1 << 16;

/// How often the caller's `tick` runs while games are being played.
const TICK: Duration = Duration::from_millis(100);

/// What the consumer of finished games wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep playing.
    Continue,
    /// Stop: no further game is wanted (an SPRT verdict).
    Stop,
}

/// Why the pool stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every scheduled game was played.
    Finished,
    /// The consumer asked to stop.
    Stopped,
    /// The `interrupt` flag was raised (Ctrl-C).
    Interrupted,
}

/// The pool's parameters.
#[derive(Clone, Debug)]
pub struct Pool {
    /// The first game index to play.
    pub start: u64,
    /// One past the last index, or `None` for no end.
    pub end: Option<u64>,
    /// Worker threads.
    pub concurrency: usize,
    /// Raised from outside to stop after the games already handed on (Ctrl-C).
    pub interrupt: Arc<AtomicBool>,
}

impl Pool {
    /// Plays games `start..end` with `play(state, index, clock)` (which returns `None` if it
    /// was stopped midway; `state` is the worker's own, made by `W::default()` when it starts)
    /// and hands each result to `consume` in index order; `tick` runs about every 100 ms.
    /// Returns why it stopped and the number of the first game not handed on.
    pub fn run<W, T, P, C, K>(&self, play: P, mut consume: C, mut tick: K) -> (End, u64)
    where
        W: Default,
        T: Send,
        P: Fn(&mut W, u64, Clock<'_>) -> Option<T> + Sync,
        C: FnMut(u64, T) -> Flow,
        K: FnMut(u64),
    {
        let workers = self.concurrency.max(1);
        let abort = Arc::new(AtomicBool::new(false));
        let watchdog = Watchdog::new(workers, Arc::clone(&abort));
        let next = AtomicU64::new(self.start);
        let handed = AtomicU64::new(self.start);
        let end = self.end.unwrap_or(u64::MAX);
        let (tx, rx) = mpsc::channel::<(u64, T)>();
        let mut outcome = End::Finished;
        let mut expected = self.start;
        std::thread::scope(|scope| {
            scope.spawn(|| watchdog.watch());
            for w in 0..workers {
                let tx = tx.clone();
                let (play, next, handed, watchdog) = (&play, &next, &handed, &watchdog);
                scope.spawn(move || {
                    let alarm = watchdog.alarm(w);
                    let clock = Clock {
                        watchdog,
                        alarm: &alarm,
                    };
                    let mut state = W::default();
                    while !watchdog.aborted() {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= end {
                            break;
                        }
                        while index >= handed.load(Ordering::Acquire).saturating_add(WINDOW)
                            && !watchdog.aborted()
                        {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        match play(&mut state, index, clock) {
                            Some(result) => {
                                if tx.send((index, result)).is_err() {
                                    break;
                                }
                            }
                            None => break,
                        }
                    }
                });
            }
            drop(tx);
            let mut pending: BTreeMap<u64, T> = BTreeMap::new();
            loop {
                if self.interrupt.load(Ordering::Relaxed) && !abort.load(Ordering::Relaxed) {
                    outcome = End::Interrupted;
                    abort.store(true, Ordering::Relaxed);
                }
                match rx.recv_timeout(TICK) {
                    Ok((index, result)) => {
                        if !abort.load(Ordering::Relaxed) {
                            pending.insert(index, result);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                while let Some(result) = pending.remove(&expected) {
                    let flow = consume(expected, result);
                    expected += 1;
                    handed.store(expected, Ordering::Release);
                    if flow == Flow::Stop {
                        outcome = End::Stopped;
                        abort.store(true, Ordering::Relaxed);
                        pending.clear();
                        break;
                    }
                }
                tick(expected);
            }
            watchdog.finish();
        });
        (outcome, expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(end: Option<u64>, concurrency: usize) -> Pool {
        Pool {
            start: 3,
            end,
            concurrency,
            interrupt: Arc::new(AtomicBool::new(false)),
        }
    }

    #[test]
    fn results_arrive_in_index_order_whatever_the_threads() {
        for threads in [1, 2, 4] {
            let mut seen = Vec::new();
            let (end, next) = pool(Some(200), threads).run(
                |_: &mut (), i, _| {
                    // Later games finish first now and then.
                    if i % 7 == 0 {
                        std::thread::yield_now();
                    }
                    Some(i * 10)
                },
                |i, v| {
                    seen.push((i, v));
                    Flow::Continue
                },
                |_| {},
            );
            assert_eq!((end, next), (End::Finished, 200));
            assert_eq!(seen, (3..200).map(|i| (i, i * 10)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_worker_keeps_its_state_from_game_to_game() {
        let mut seen = Vec::new();
        pool(Some(50), 1).run(
            |played: &mut u64, _, _| {
                *played += 1;
                Some(*played)
            },
            |_, n| {
                seen.push(n);
                Flow::Continue
            },
            |_| {},
        );
        assert_eq!(seen, (1..=47).collect::<Vec<_>>());
    }

    #[test]
    fn the_consumer_stops_an_endless_pool() {
        let mut seen = 0;
        let (end, next) = pool(None, 2).run(
            |_: &mut (), i, _| Some(i),
            |i, _| {
                seen += 1;
                if i == 50 { Flow::Stop } else { Flow::Continue }
            },
            |_| {},
        );
        assert_eq!((end, next, seen), (End::Stopped, 51, 48));
    }

    #[test]
    fn an_interrupt_keeps_only_an_unbroken_prefix() {
        let p = pool(None, 2);
        let interrupt = Arc::clone(&p.interrupt);
        let mut seen = Vec::new();
        let (end, next) = p.run(
            |_: &mut (), i, clock| {
                if i == 20 {
                    interrupt.store(true, Ordering::Relaxed);
                    // A game in play when the interrupt comes is dropped.
                    while !clock.watchdog.aborted() {
                        std::thread::yield_now();
                    }
                    return None;
                }
                Some(i)
            },
            |i, _| {
                seen.push(i);
                Flow::Continue
            },
            |_| {},
        );
        assert_eq!(end, End::Interrupted);
        assert!(next <= 20);
        assert_eq!(seen, (3..next).collect::<Vec<_>>());
    }
}
