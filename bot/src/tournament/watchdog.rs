//! The watchdog: one thread that raises a worker's stop flag when the bot it is running passes
//! its deadline, or when the whole tournament is told to stop (Ctrl-C, an SPRT verdict).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often the watchdog looks at the deadlines.
const TICK: Duration = Duration::from_millis(2);

/// One worker's alarm: the deadline of the move being searched and the stop flag its bots
/// were handed.
#[derive(Debug)]
pub struct Alarm {
    /// Nanoseconds after the watchdog's epoch; 0 when no deadline is armed.
    deadline: AtomicU64,
    stop: Arc<AtomicBool>,
}

impl Alarm {
    /// The stop flag to hand the worker's bots ([`crate::Player::set_stop`]).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// Deadlines of every worker, watched by one thread.
#[derive(Debug)]
pub struct Watchdog {
    epoch: Instant,
    alarms: Vec<Arc<Alarm>>,
    abort: Arc<AtomicBool>,
    done: AtomicBool,
}

impl Watchdog {
    /// A watchdog for `workers` workers that also stops every bot once `abort` is set.
    pub fn new(workers: usize, abort: Arc<AtomicBool>) -> Watchdog {
        Watchdog {
            epoch: Instant::now(),
            alarms: (0..workers)
                .map(|_| {
                    Arc::new(Alarm {
                        deadline: AtomicU64::new(0),
                        stop: Arc::new(AtomicBool::new(false)),
                    })
                })
                .collect(),
            abort,
            done: AtomicBool::new(false),
        }
    }

    /// Worker `i`'s alarm.
    pub fn alarm(&self, i: usize) -> Arc<Alarm> {
        Arc::clone(&self.alarms[i % self.alarms.len().max(1)])
    }

    /// Clears `alarm`'s stop flag before a move (unless the tournament is stopping).
    pub fn ready(&self, alarm: &Alarm) {
        alarm.stop.store(self.aborted(), Ordering::Relaxed);
    }

    /// Clears `alarm`'s stop flag and arms it to raise the flag `limit` from now.
    pub fn arm(&self, alarm: &Alarm, limit: Duration) {
        let at = (self.epoch.elapsed() + limit).as_nanos().max(1) as u64;
        self.ready(alarm);
        alarm.deadline.store(at, Ordering::Release);
    }

    /// Disarms `alarm` after its bot answered. If the watchdog has just claimed the deadline,
    /// waits for its flag to be raised, so that no late raise can stop the next move.
    pub fn disarm(&self, alarm: &Alarm) {
        if alarm.deadline.swap(0, Ordering::AcqRel) == 0 {
            while !alarm.stop.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
        }
    }

    /// Whether the tournament is stopping.
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// Watches until [`Watchdog::finish`]; run it on its own thread.
    pub fn watch(&self) {
        while !self.done.load(Ordering::Acquire) {
            let now = self.epoch.elapsed().as_nanos() as u64;
            let abort = self.aborted();
            for alarm in &self.alarms {
                let deadline = alarm.deadline.load(Ordering::Acquire);
                // A deadline is claimed (set to 0) before its flag is raised; see `disarm`.
                let passed = deadline != 0
                    && now >= deadline
                    && alarm
                        .deadline
                        .compare_exchange(deadline, 0, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok();
                if abort || passed {
                    alarm.stop.store(true, Ordering::Release);
                }
            }
            std::thread::sleep(TICK);
        }
    }

    /// Ends [`Watchdog::watch`].
    pub fn finish(&self) {
        self.done.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits until `cond` holds; after 10 s ends the watchdog (so the scope can end) and fails.
    fn wait_for(dog: &Watchdog, what: &str, cond: impl Fn() -> bool) {
        let start = Instant::now();
        while !cond() {
            if start.elapsed() > Duration::from_secs(10) {
                dog.finish();
                panic!("{what} did not happen within 10 s");
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn abort_raises_every_stop_flag() {
        let abort = Arc::new(AtomicBool::new(false));
        let dog = Watchdog::new(2, Arc::clone(&abort));
        let flags = [dog.alarm(0).stop_flag(), dog.alarm(1).stop_flag()];
        std::thread::scope(|s| {
            s.spawn(|| dog.watch());
            abort.store(true, Ordering::Relaxed);
            wait_for(&dog, "every flag raised", || {
                flags.iter().all(|f| f.load(Ordering::Relaxed))
            });
            dog.finish();
        });
    }

    #[test]
    fn a_passed_deadline_raises_its_flag() {
        let dog = Watchdog::new(1, Arc::new(AtomicBool::new(false)));
        let alarm = dog.alarm(0);
        dog.arm(&alarm, Duration::ZERO);
        std::thread::scope(|s| {
            s.spawn(|| dog.watch());
            wait_for(&dog, "the flag raised", || {
                alarm.stop.load(Ordering::Relaxed)
            });
            // The next move starts with the flag down, and it stays down without a deadline.
            dog.disarm(&alarm);
            dog.ready(&alarm);
            assert!(!alarm.stop.load(Ordering::Relaxed));
            dog.finish();
        });
    }
}
