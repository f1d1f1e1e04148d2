//! [`Analyst`]: answers `analyze` from a task of its own, so that the asking connection goes on
//! reading; the computation runs on the blocking pool, a bounded number at once, within the
//! server's analysis time.

use super::{About, Subject, annotate};
use crate::game::outbox::Peer;
use crate::metrics::Metrics;
use crate::settings::Settings;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::wire::{Analysis, Annotation, ErrorCode, ServerMessage};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Computes analyses for every connection of one server.
#[derive(Clone, Debug)]
pub(crate) struct Analyst {
    /// Bounds the analyses computed at once (each holds a blocking thread).
    slots: Arc<Semaphore>,
    /// The classic database.
    library: Arc<ClassicLibrary>,
    /// Longest one analysis takes.
    time: Duration,
    /// Counts the analyses answered.
    metrics: Arc<Metrics>,
}

impl Analyst {
    /// An analyst with the settings' threads and time.
    pub(crate) fn new(
        settings: &Settings,
        library: Arc<ClassicLibrary>,
        metrics: Arc<Metrics>,
    ) -> Analyst {
        Analyst {
            slots: Arc::new(Semaphore::new(settings.analysis_threads.clamp(1, 1024))),
            library,
            time: settings.analysis_time,
            metrics,
        }
    }

    /// Sends `peer` the analysis of `subject` once it is computed, from a task of its own;
    /// `permit` (one of the connection's) is held until then. The analysis waits for a free
    /// slot, and is dropped if the connection is gone by then.
    pub(crate) fn answer(&self, peer: Peer, subject: Subject, permit: OwnedSemaphorePermit) {
        let me = self.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let Ok(_slot) = me.slots.clone().acquire_owned().await else {
                return;
            };
            if peer.is_gone() {
                return;
            }
            match me.compute(subject).await {
                Some(analysis) => {
                    me.metrics.analyses.inc();
                    peer.send_msg(&ServerMessage::Analysis(analysis));
                }
                None => peer.send_msg(&ServerMessage::Error {
                    code: ErrorCode::Internal,
                    message: "the analysis failed".to_string(),
                }),
            }
        });
    }

    /// The analysis of `subject`, computed on the blocking pool; `None` if the engine failed.
    async fn compute(&self, subject: Subject) -> Option<Analysis> {
        let Subject {
            about,
            index,
            config,
            position,
        } = subject;
        let stop = Arc::new(AtomicBool::new(false));
        let now = std::time::Instant::now();
        let deadline = now
            .checked_add(self.time)
            .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 60 * 60));
        let (library, flag) = (self.library.clone(), stop.clone());
        let job = tokio::task::spawn_blocking(move || {
            annotate(&config, &position, &library, flag, deadline)
        });
        tokio::pin!(job);
        // Halfway, exact solving gives up and each selection gets a share of the rest.
        let moves: Vec<Annotation> = tokio::select! {
            done = &mut job => done,
            _ = tokio::time::sleep(self.time / 2) => {
                stop.store(true, Ordering::Relaxed);
                job.await
            }
        }
        .map_err(|e| tracing::error!(error = %e, "an analysis failed"))
        .ok()?;
        let (room, game) = match about {
            About::Room(id) => (Some(id), None),
            About::Game(id) => (None, Some(id)),
            About::Position => (None, None),
        };
        Some(Analysis {
            room,
            game,
            index: index as u64,
            to_move: position.to_move(),
            moves,
        })
    }
}
