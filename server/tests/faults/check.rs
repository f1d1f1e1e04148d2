//! The invariants of a fault scenario, judged from the clients' histories, the records stored
//! in PostgreSQL and the rooms the nodes list at the end: no acknowledged move lost, one history
//! per game, every game finished and stored once, no finished room listed as playing, no move
//! answered `unavailable` played, no game ended `abandoned` (every seat's client kept trying to
//! get back in); and the longest time a game could not move, against the scenario's bound.

use crate::faults::player::{History, Move, Seen, moves_of};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

/// What a scenario found.
#[derive(Debug, Default)]
pub struct Report {
    /// Distinct `moved` (game, move) that some client was shown and the record lacks.
    pub lost: usize,
    /// Distinct messages (a `moved` or a snapshot) the record contradicts.
    pub forks: usize,
    /// Games without exactly one finished record in PostgreSQL.
    pub not_stored_once: usize,
    /// Games no client saw finished.
    pub unfinished: usize,
    /// Rooms of finished games some node lists as playing at the end.
    pub listed_playing: usize,
    /// Moves answered `unavailable` that the record holds (the same seat, place and cell).
    pub unavailable_played: usize,
    /// Games that ended `abandoned` (a seat that could not get back in time).
    pub abandoned: usize,
    /// The longest time a game could not move (between two moves first seen by any client).
    pub longest_stall: Duration,
    /// `moved` messages judged (what the clients were shown in all).
    pub moved_seen: usize,
    /// Times a client went to another node.
    pub went: usize,
    /// Clients of a node the fault did not strike that had to go elsewhere (a seat or
    /// spectator relayed from a healthy node must keep its place through a takeover).
    pub displaced: usize,
    /// What each violation was, for the reader.
    pub details: Vec<String>,
}

impl Report {
    /// Whether every invariant holds and no game stalled longer than `stall`.
    pub fn holds(&self, stall: Duration) -> bool {
        self.lost + self.forks + self.not_stored_once + self.unfinished == 0
            && self.listed_playing + self.unavailable_played + self.abandoned == 0
            && self.displaced == 0
            && self.longest_stall <= stall
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} moved judged, {} changes of node; lost {}, forks {}, not stored once {}, \
             unfinished {}, finished listed as playing {}, unavailable but played {}, \
             abandoned {}, displaced {}, longest stall {:.1} s",
            self.moved_seen,
            self.went,
            self.lost,
            self.forks,
            self.not_stored_once,
            self.unfinished,
            self.listed_playing,
            self.unavailable_played,
            self.abandoned,
            self.displaced,
            self.longest_stall.as_secs_f64()
        )?;
        for d in &self.details {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

/// A game's final record: its moves and result.
struct Final {
    moves: Vec<Move>,
    result: Value,
}

/// Whose clients a fault may send elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MayGo {
    /// Every node's (every node stopped serving).
    Anyone,
    /// Those of the node struck; a client of another node must keep its place.
    Node(usize),
    /// Nobody's.
    Nobody,
}

/// Judges `histories` of the games in `rooms` against `records` (id, record) and `listed`
/// (every room any node lists at the end), clients going elsewhere as `may_go` allows.
pub fn judge(
    rooms: &[String],
    histories: &[History],
    records: &[(String, Value)],
    listed: &[Value],
    may_go: MayGo,
) -> Report {
    let mut report = Report::default();
    for h in histories {
        let allowed = match may_go {
            MayGo::Anyone => true,
            MayGo::Node(node) => h.node == node,
            MayGo::Nobody => false,
        };
        if !allowed && h.seen.iter().any(|s| matches!(s, Seen::Went { .. })) {
            report.displaced += 1;
            report.details.push(format!(
                "{}: {} lost its place: {}",
                h.room,
                h.who,
                story(h)
            ));
        }
    }
    for room in rooms {
        let stored: Vec<&Value> = records
            .iter()
            .filter(|(id, _)| id == room)
            .map(|(_, r)| r)
            .collect();
        let of_game: Vec<&History> = histories.iter().filter(|h| &h.room == room).collect();
        if !of_game.iter().any(|h| h.finished) {
            report.unfinished += 1;
            report.details.push(format!("{room}: no client saw it end"));
        }
        let [record] = stored[..] else {
            report.not_stored_once += 1;
            let n = stored.len();
            report.details.push(format!("{room}: {n} records"));
            continue;
        };
        let fin = Final {
            moves: moves_of(&record["moves"]),
            result: record["result"].clone(),
        };
        if fin.result["kind"] == "abandoned" {
            report.abandoned += 1;
            let loser = format!("seat {} ", fin.result["loser"]);
            let story = of_game
                .iter()
                .filter(|h| h.who.starts_with(&loser))
                .map(|h| story(h))
                .collect::<Vec<_>>()
                .join("; ");
            report
                .details
                .push(format!("{room}: {}: {story}", fin.result));
        }
        judge_game(room, &fin, &of_game, &mut report);
    }
    for r in listed {
        let mine = r["room"]
            .as_str()
            .is_some_and(|id| rooms.iter().any(|x| x == id));
        let finished = records.iter().any(|(id, _)| r["room"] == id.as_str());
        if mine && finished && r["status"] == "playing" {
            report.listed_playing += 1;
            report
                .details
                .push(format!("{} listed as playing", r["room"]));
        }
    }
    report
}

/// Judges one game's histories against its record.
fn judge_game(room: &str, fin: &Final, histories: &[&History], report: &mut Report) {
    let mut lost = BTreeSet::new();
    let mut forks = BTreeSet::new();
    let mut went = Vec::new();
    // (time, moves known): what each consistent message showed, for the stall.
    let mut progress = Vec::new();
    for h in histories {
        for seen in &h.seen {
            match seen {
                Seen::Moved {
                    at,
                    version,
                    index,
                    mv,
                    result,
                } => {
                    report.moved_seen += 1;
                    if !fin.moves.contains(mv) {
                        lost.insert(*mv);
                    }
                    // A `moved` after a gap was not applied: only whether it was kept counts.
                    let Some(index) = index else { continue };
                    let ends = !result.is_null();
                    let fits = fin.moves.get(*index) == Some(mv)
                        && (!ends || (*index + 1 == fin.moves.len() && *result == fin.result));
                    if fits {
                        progress.push((*at, index + 1));
                    } else if forks.insert(format!("moved v{version} #{index} {mv:?}")) {
                        let who = &h.who;
                        report.details.push(format!(
                            "{room}: {who} shown moved v{version} as move {index}: {mv:?} at {at:.1?}; record: {:?}",
                            fin.moves.get(*index)
                        ));
                    }
                }
                Seen::Snapshot {
                    at,
                    version,
                    moves,
                    status,
                    result,
                } => {
                    let prefix = fin.moves.starts_with(moves);
                    let ends = status == "finished";
                    let fits = prefix
                        && (!ends || (moves.len() == fin.moves.len() && *result == fin.result));
                    if fits {
                        progress.push((*at, moves.len()));
                    } else if forks.insert(format!("room v{version} {} {status}", moves.len())) {
                        let who = &h.who;
                        let n = moves.len();
                        report.details.push(format!(
                            "{room}: {who} shown a snapshot v{version} ({n} moves, {status}) at {at:.1?} the record contradicts"
                        ));
                    }
                }
                Seen::Unavailable { at, index, mv } => {
                    if fin.moves.get(*index) == Some(mv) {
                        report.unavailable_played += 1;
                        let who = &h.who;
                        report.details.push(format!(
                            "{room}: {who}'s move {index} {mv:?} answered unavailable at {at:.1?} was played"
                        ));
                    }
                }
                Seen::Rejected { .. } => {}
                Seen::Went { at, node, why } => {
                    report.went += 1;
                    went.push(format!(
                        "{room}: {} went to node {node} at {at:.1?} ({why})",
                        h.who
                    ));
                }
            }
        }
    }
    for mv in &lost {
        report.details.push(format!(
            "{room}: acknowledged move {mv:?} is not in the record"
        ));
    }
    if !lost.is_empty() || !forks.is_empty() {
        report.details.extend(went);
    }
    report.lost += lost.len();
    report.forks += forks.len();
    let stall = longest_stall(progress);
    report.longest_stall = report.longest_stall.max(stall);
}

/// What happened to a client, in short: its changes of node and its refused moves.
fn story(h: &History) -> String {
    let mut went = Vec::new();
    let mut refused: BTreeMap<&str, (usize, Duration, Duration)> = BTreeMap::new();
    for seen in &h.seen {
        match seen {
            Seen::Went { at, node, why } => {
                went.push(format!("to node {node} at {at:.1?} ({why})"))
            }
            Seen::Rejected { at, reason } => {
                let e = refused.entry(reason).or_insert((0, *at, *at));
                e.0 += 1;
                e.2 = *at;
            }
            _ => {}
        }
    }
    let refused: Vec<String> = refused
        .iter()
        .map(|(r, (n, a, b))| format!("{n} moves refused {r} from {a:.1?} to {b:.1?}"))
        .collect();
    format!("{} went {went:?}, {}", h.who, refused.join(", "))
}

/// The longest time between the first sightings of two successive move counts.
fn longest_stall(mut progress: Vec<(Duration, usize)>) -> Duration {
    progress.sort();
    let mut first: BTreeMap<usize, Duration> = BTreeMap::new();
    let mut known = 0;
    for (at, n) in progress {
        if n > known {
            known = n;
            first.insert(n, at);
        }
    }
    let times: Vec<Duration> = first.into_values().collect();
    times
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .max()
        .unwrap_or_default()
}

/// The judge itself: each invariant it checks fails on a history that breaks it.
mod tests {
    use super::*;
    use serde_json::json;

    fn record(moves: &[Move]) -> Value {
        let moves: Vec<Value> = moves
            .iter()
            .map(|(s, r, c)| json!({"seat":s,"row":r,"col":c}))
            .collect();
        json!({"moves":moves,"result":{"kind":"poisoned","loser":1}})
    }

    fn history(seen: Vec<Seen>) -> History {
        History {
            room: "r".into(),
            who: "seat 1 from node 2".into(),
            node: 2,
            seen,
            finished: true,
        }
    }

    fn moved(index: usize, mv: Move, at: u64) -> Seen {
        Seen::Moved {
            at: Duration::from_secs(at),
            version: 10 + index as u64,
            index: Some(index),
            mv,
            result: Value::Null,
        }
    }

    #[test]
    fn the_judge_finds_each_kind_of_violation() {
        let rooms = ["r".to_string()];
        let stored = [("r".to_string(), record(&[(0, 3, 3), (1, 2, 2), (0, 1, 1)]))];
        let good = history(vec![moved(0, (0, 3, 3), 1), moved(1, (1, 2, 2), 2)]);
        let report = judge(
            &rooms,
            std::slice::from_ref(&good),
            &stored,
            &[],
            MayGo::Node(0),
        );
        assert!(report.holds(Duration::from_secs(1)), "{report}");

        // A move the record does not have, shown as move 1: lost and a fork.
        let forked = history(vec![moved(0, (0, 3, 3), 1), moved(1, (1, 4, 4), 2)]);
        let report = judge(
            &rooms,
            &[good.clone(), forked],
            &stored,
            &[],
            MayGo::Node(0),
        );
        assert_eq!((report.lost, report.forks), (1, 1), "{report}");

        // A finished snapshot with another result; a move answered unavailable and played.
        let snap = Seen::Snapshot {
            at: Duration::from_secs(3),
            version: 20,
            moves: vec![(0, 3, 3), (1, 2, 2), (0, 1, 1)],
            status: "finished".into(),
            result: json!({"kind":"abandoned","loser":0}),
        };
        let unavailable = Seen::Unavailable {
            at: Duration::from_secs(1),
            index: 1,
            mv: (1, 2, 2),
        };
        let report = judge(
            &rooms,
            &[history(vec![snap, unavailable])],
            &stored,
            &[],
            MayGo::Node(0),
        );
        assert_eq!(
            (report.forks, report.unavailable_played),
            (1, 1),
            "{report}"
        );

        // Not stored, listed as playing, and a stall past the bound.
        let report = judge(
            &rooms,
            std::slice::from_ref(&good),
            &[],
            &[],
            MayGo::Node(0),
        );
        assert_eq!(report.not_stored_once, 1, "{report}");
        let listed = [json!({"room":"r","status":"playing"})];
        let report = judge(
            &rooms,
            std::slice::from_ref(&good),
            &stored,
            &listed,
            MayGo::Node(0),
        );
        assert_eq!(report.listed_playing, 1, "{report}");
        let slow = history(vec![moved(0, (0, 3, 3), 1), moved(1, (1, 2, 2), 9)]);
        let report = judge(&rooms, &[slow], &stored, &[], MayGo::Node(0));
        assert_eq!(report.longest_stall, Duration::from_secs(8));
        assert!(!report.holds(Duration::from_secs(6)));

        // A client of a node the fault did not strike that had to go elsewhere.
        let went = Seen::Went {
            at: Duration::from_secs(2),
            node: 0,
            why: "connection closed".into(),
        };
        let moved_on = history(vec![moved(0, (0, 3, 3), 1), went.clone()]);
        let report = judge(
            &rooms,
            std::slice::from_ref(&moved_on),
            &stored,
            &[],
            MayGo::Node(0),
        );
        assert_eq!(report.displaced, 1, "{report}");
        assert!(!report.holds(Duration::from_secs(6)));
        let report = judge(
            &rooms,
            std::slice::from_ref(&moved_on),
            &stored,
            &[],
            MayGo::Node(2),
        );
        assert_eq!(report.displaced, 0, "{report}");
        let report = judge(
            &rooms,
            std::slice::from_ref(&moved_on),
            &stored,
            &[],
            MayGo::Anyone,
        );
        assert_eq!(report.displaced, 0, "{report}");
        let report = judge(&rooms, &[moved_on], &stored, &[], MayGo::Nobody);
        assert_eq!(report.displaced, 1, "{report}");
    }
}
