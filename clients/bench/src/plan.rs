//! The shape of a load run ([`Shape`], [`Load`]), which node each seat connects to
//! (`node_of`), and what its tasks share while it runs: the `Stage` every table follows and
//! the `Live` counters the sampler reads each second.

use super::fault::Strike;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Config;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// What the connections do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Load {
    /// Rooms of `config.players()` seats playing games of this configuration, one after
    /// another, against a JChomp server.
    Game {
        /// The validated configuration (the local copy of each game is played with it); boxed,
        /// as it is far larger than the other variant.
        config: Box<Config>,
        /// The same configuration as sent in `create_room`.
        json: ConfigJson,
    },
    /// Groups of `seats` connections taking turns sending a move-sized message to an echo
    /// server and waiting for it to come back: the same shape without a game.
    Echo {
        /// Connections per group (as many as a room has seats).
        seats: usize,
        /// Each message goes to every connection of its group (as a move goes to every seat
        /// of its room), not only back to its sender.
        fanout: bool,
    },
}

impl Load {
    /// A game load for a configuration.
    pub fn game(config: Config) -> Load {
        Load::Game {
            json: ConfigJson::new(&config, None),
            config: Box::new(config),
        }
    }

    /// Connections per room (or echo group).
    pub fn seats(&self) -> usize {
        match self {
            Load::Game { config, .. } => usize::from(config.players()),
            Load::Echo { seats, .. } => *seats,
        }
    }

    /// `game` or `echo`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Load::Game { .. } => "game",
            Load::Echo { fanout: false, .. } => "echo",
            Load::Echo { fanout: true, .. } => "fan-out echo",
        }
    }
}

/// How much load, for how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Connections to open (rounded down to whole rooms).
    pub connections: usize,
    /// Time measured, after the warm-up.
    pub duration: Duration,
    /// Time played before measuring starts.
    pub warmup: Duration,
    /// Moves per second per seat at most; `None` sends each move as soon as it is the seat's
    /// turn.
    pub rate: Option<f64>,
    /// Connections being opened at once.
    pub connect_parallel: usize,
    /// Time the whole connect phase may take.
    pub connect_deadline: Duration,
    /// Time tables get after the end to finish the game they are in.
    pub drain: Duration,
    /// Seeds the scripted players' choices.
    pub seed: u64,
    /// A fault struck during the window (`--fault`): the players then reconnect and resume
    /// (see `survive`), and most rooms are created on the node struck ([`fault_node_of`]).
    pub fault: Option<Strike>,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            connections: 100,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(2),
            rate: None,
            connect_parallel: 256,
            connect_deadline: Duration::from_secs(120),
            drain: Duration::from_secs(10),
            seed: 1,
            fault: None,
        }
    }
}

impl Shape {
    /// The time between two moves of one seat under `rate`.
    pub(crate) fn pause(&self) -> Option<Duration> {
        self.rate
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Duration::from_secs_f64(1.0 / r))
    }
}

/// The node (an index into the servers of a run) that seat `seat` of table `table` connects
/// to, of `nodes`: seat 0 creates the room on node `table mod nodes` (so rooms, and the nodes
/// owning them, are spread evenly) and each next seat joins from the next node, so that with
/// two or more nodes every room has players on two nodes and every move crosses between them.
pub(crate) fn node_of(table: usize, seat: usize, nodes: usize) -> usize {
    (table + seat) % nodes.max(1)
}

/// [`node_of`] for a fault run (`--fault`), which strikes the first node: seat 0 of every even
/// table creates its room there, the odd tables' rooms are spread over every node, and each
/// next seat joins from the next node. With three nodes, two rooms in three are the first
/// node's and every room has a seat on another node.
pub(crate) fn fault_node_of(table: usize, seat: usize, nodes: usize) -> usize {
    let nodes = nodes.max(1);
    let creator = if table.is_multiple_of(2) {
        0
    } else {
        (table / 2) % nodes
    };
    (creator + seat) % nodes
}

/// Whether `seat` of any table connects to another node than the one its room is played on
/// (the node of seat 0, which created it).
pub(crate) fn off_owner(seat: usize, nodes: usize) -> bool {
    nodes > 1 && !seat.is_multiple_of(nodes)
}

/// The measurement window: moves answered in `[start, end)` count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    /// Measuring starts (after the warm-up).
    pub start: Instant,
    /// Measuring ends.
    pub end: Instant,
}

impl Window {
    /// Whether `t` falls inside the window.
    pub(crate) fn contains(&self, t: Instant) -> bool {
        self.start <= t && t < self.end
    }
}

/// Where a run is; tables watch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Connections are being opened; tables wait once connected.
    Connecting,
    /// Play (or echo); the window says what is measured.
    Run(Window),
    /// No new games; finish the current one.
    Stop,
    /// Stop now, whatever the state.
    Halt,
}

/// A table's view of the [`Stage`]: the stage now, and one waiter for the next change that
/// lives across the table's messages (a fresh `watch` waiter for every message read cost two
/// lock round-trips each). Waiting is cancel-safe: a wait cut short resumes where it was.
pub(crate) struct StageWatch {
    now: Stage,
    next: Pin<Box<dyn Future<Output = (Stage, watch::Receiver<Stage>)> + Send>>,
}

impl StageWatch {
    /// Watches `rx` from its current stage.
    pub(crate) fn new(mut rx: watch::Receiver<Stage>) -> Self {
        let now = *rx.borrow_and_update();
        StageWatch {
            now,
            next: Self::wait(rx),
        }
    }

    /// The stage now.
    pub(crate) fn now(&self) -> Stage {
        self.now
    }

    /// Waits for the next stage and returns it ([`Stage::Halt`] once the run is gone).
    pub(crate) async fn changed(&mut self) -> Stage {
        let (stage, rx) = (&mut self.next).await;
        self.now = stage;
        self.next = Self::wait(rx);
        stage
    }

    fn wait(
        mut rx: watch::Receiver<Stage>,
    ) -> Pin<Box<dyn Future<Output = (Stage, watch::Receiver<Stage>)> + Send>> {
        Box::pin(async move {
            let stage = match rx.changed().await {
                Ok(()) => *rx.borrow_and_update(),
                Err(_) => Stage::Halt,
            };
            (stage, rx)
        })
    }
}

/// Counters shared by every table, read by the sampler.
#[derive(Debug, Default)]
pub(crate) struct Live {
    /// Connections opened.
    pub connected: AtomicUsize,
    /// Connections that failed to open.
    pub connect_failed: AtomicUsize,
    /// Connections open now.
    pub open: AtomicUsize,
    /// Moves (or echoes) answered so far.
    pub answered: AtomicU64,
    /// Rooms with a game in play now.
    pub playing: AtomicUsize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_of_a_room_are_split_across_nodes_and_rooms_spread_over_them() {
        // One node: everything on it.
        assert!((0..5).all(|t| (0..4).all(|s| node_of(t, s, 1) == 0)));
        assert!(!off_owner(1, 1));
        // Two nodes, two seats: each room on both nodes, owners alternating.
        let rooms: Vec<(usize, usize)> = (0..4)
            .map(|t| (node_of(t, 0, 2), node_of(t, 1, 2)))
            .collect();
        assert_eq!(rooms, [(0, 1), (1, 0), (0, 1), (1, 0)]);
        assert!(!off_owner(0, 2) && off_owner(1, 2));
        // Three seats on two nodes: the third seat shares the owner's node.
        assert_eq!(node_of(1, 2, 2), node_of(1, 0, 2));
        assert!(!off_owner(2, 2));
        // Off the owner's node exactly when the node differs from seat 0's.
        for nodes in 1..5 {
            for t in 0..7 {
                for s in 0..4 {
                    let differs = node_of(t, s, nodes) != node_of(t, 0, nodes);
                    assert_eq!(off_owner(s, nodes), differs, "{t} {s} {nodes}");
                    assert!(node_of(t, s, nodes) < nodes);
                }
            }
        }
    }

    #[test]
    fn under_a_fault_most_rooms_are_created_on_the_first_node() {
        let creators: Vec<usize> = (0..12).map(|t| fault_node_of(t, 0, 3)).collect();
        assert_eq!(creators, [0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 2]);
        assert_eq!(creators.iter().filter(|&&n| n == 0).count(), 8);
        // Each next seat on the next node.
        assert_eq!((fault_node_of(3, 1, 3), fault_node_of(3, 2, 3)), (2, 0));
        assert!((0..20).all(|t| fault_node_of(t, 1, 2) != fault_node_of(t, 0, 2)));
        assert_eq!(fault_node_of(5, 1, 1), 0);
    }

    #[tokio::test]
    async fn a_stage_watch_sees_every_change_even_after_a_wait_was_cut_short() {
        let (tx, rx) = watch::channel(Stage::Connecting);
        let mut w = StageWatch::new(rx);
        assert_eq!(w.now(), Stage::Connecting);
        // A wait cut short (as when another branch of a select wins) loses nothing.
        let cut = tokio::time::timeout(Duration::from_millis(10), w.changed()).await;
        assert!(cut.is_err());
        tx.send(Stage::Stop).unwrap();
        assert_eq!(w.changed().await, Stage::Stop);
        assert_eq!(w.now(), Stage::Stop);
        drop(tx);
        assert_eq!(w.changed().await, Stage::Halt);
        assert_eq!(w.now(), Stage::Halt);
    }
}
