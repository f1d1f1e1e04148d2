//! Quick pairing: players ask to be paired for one of a few presets ([`presets`]) and wait in
//! its pool; a task that owns every pool ([`task`]) runs a wave each period, groups waiters of
//! about the same rating ([`pool`]) and makes each group a room, bots of about their rating
//! taking the seats nobody took when the waiters allowed it ([`levels`]). In a cluster the
//! pools are in Redis, shared by every node, and one node at a time pairs them ([`shared`]).

mod levels;
pub(crate) mod pool;
mod presets;
mod shared;
mod task;

pub(crate) use presets::{Preset, presets};

use crate::accounts::Accounts;
use crate::cluster::Cluster;
use crate::game::event::RoomEvent;
use crate::game::outbox::{ConnId, Peer};
use crate::game::room::RoomContext;
use crate::ratings::{GLICKO_START, initial, two_players};
use pool::Rules;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// What a waiter gets when a wave seats them.
#[derive(Debug)]
pub(crate) enum Found {
    /// A seat in a room of this node, held by the connection already.
    Here {
        /// The room's id.
        room: String,
        /// Its task's channel.
        tx: mpsc::Sender<RoomEvent>,
    },
    /// A seat in a room of another node of the cluster, for the connection to take with its
    /// token (as a `resume` does).
    Elsewhere {
        /// The seat's token.
        token: String,
    },
}

/// One connection asking to be paired.
#[derive(Debug)]
pub(crate) struct Seek {
    /// The connection.
    pub peer: Peer,
    /// The name its seat will have (an account's name, or the guest's).
    pub name: String,
    /// Whether it acts as an account (a room is rated when everybody in it does).
    pub account: bool,
    /// Its rating in the preset's category, on that category's own scale.
    pub rating: f64,
    /// Whether bots may take the empty seats after the patience.
    pub bots: bool,
    /// The preset, by index into [`Pairing::presets`].
    pub preset: usize,
    /// Where the room found is sent.
    pub found: oneshot::Sender<Found>,
}

/// The events the pairing task handles.
#[derive(Debug)]
enum Event {
    /// A connection waits in a pool (it leaves any other) and is told `seeking`; answered
    /// false if the cluster's pools cannot be reached.
    Seek(Box<Seek>, oneshot::Sender<bool>),
    /// A connection stops waiting; answered with the preset it waited for, if it still did.
    Cancel(ConnId, oneshot::Sender<Option<usize>>),
    /// How many wait in each pool.
    Counts(oneshot::Sender<Vec<u32>>),
}

/// The handle every connection holds to the pairing task.
#[derive(Clone, Debug)]
pub(crate) struct Pairing {
    tx: mpsc::Sender<Event>,
    presets: Arc<Vec<Preset>>,
    rules: Rules,
}

/// Events waiting for the pairing task at most; a connection asking past that waits its turn.
const QUEUE: usize = 1024;

/// The pairing task before it starts: what [`Pairing::new`] made for [`Idle::start`].
#[derive(Debug)]
pub(crate) struct Idle {
    rx: mpsc::Receiver<Event>,
    presets: Arc<Vec<Preset>>,
    rules: Rules,
    period: Duration,
}

impl Idle {
    /// Starts the pairing task for the rooms of `ctx`; bots' levels are chosen by the ratings
    /// in `accounts`; in a `cluster`, the pools are shared by its nodes. The task ends when the
    /// server shuts down.
    pub(crate) fn start(self, ctx: RoomContext, accounts: Accounts, cluster: Option<Arc<Cluster>>) {
        let pools = task::Pools::new(ctx, accounts, self.presets, self.rules, cluster);
        tokio::spawn(task::run(pools, self.rx, self.period));
    }
}

impl Pairing {
    /// The handle, and the task to start once the server's parts exist ([`Idle::start`]):
    /// pools paired by `rules`, a wave every `period`.
    pub(crate) fn new(rules: Rules, period: Duration) -> (Pairing, Idle) {
        let presets = Arc::new(presets::presets());
        let (tx, rx) = mpsc::channel(QUEUE);
        let idle = Idle {
            rx,
            presets: presets.clone(),
            rules,
            period,
        };
        (Pairing { tx, presets, rules }, idle)
    }

    /// The presets, in the order they are listed.
    pub(crate) fn presets(&self) -> &[Preset] {
        &self.presets
    }

    /// The preset named `name`.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.presets.iter().position(|p| p.name == name)
    }

    /// How long a waiter who allows bots waits before bots take the empty seats.
    pub(crate) fn bot_patience(&self) -> Duration {
        self.rules.bot_patience
    }

    /// Puts a connection in a pool (out of any other), the pairing task telling it `seeking`;
    /// false if the server is shutting down or the cluster's pools cannot be reached.
    pub(crate) async fn seek(&self, seek: Seek) -> bool {
        let (reply, rx) = oneshot::channel();
        if self
            .tx
            .send(Event::Seek(Box::new(seek), reply))
            .await
            .is_err()
        {
            return false;
        }
        rx.await.unwrap_or(false)
    }

    /// Takes a connection out of its pool; returns the preset it waited for, if it still did
    /// (a connection a wave has seated waits no more: its room is in its [`Found`]).
    pub(crate) async fn cancel(&self, conn: ConnId) -> Option<usize> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Event::Cancel(conn, reply)).await.ok()?;
        rx.await.ok().flatten()
    }

    /// How many wait in each pool, in the order of the presets.
    pub(crate) async fn counts(&self) -> Vec<u32> {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Event::Counts(reply)).await.is_err() {
            return vec![0; self.presets.len()];
        }
        rx.await.unwrap_or_else(|_| vec![0; self.presets.len()])
    }
}

/// A rating of `category` on the one scale pools compare: Glicko-2's for two players as it
/// is, Weng–Lin's μ (25 at the start) mapped so that its β (25/6, the skill gap that wins
/// about three games in four) spans 200 points, as it does on Glicko's scale.
pub(crate) fn scale(category: &str, rating: f64) -> f64 {
    if two_players(category) {
        rating
    } else {
        GLICKO_START + (rating - initial(category).rating) * 200.0 / (25.0 / 6.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_rating_systems_meet_on_one_scale() {
        assert_eq!(scale("jchomp:2", 1720.0), 1720.0);
        assert_eq!(scale("jchomp:3-4", 25.0), 1500.0);
        assert!((scale("classic:3-4", 25.0 + 25.0 / 6.0) - 1700.0).abs() < 1e-9);
    }
}
