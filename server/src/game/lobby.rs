//! [`Lobby`]: the registry of rooms (id → room channel and summary) and of seat tokens (kept
//! as their hashes, as the database keeps them).
//! Guarded by a std mutex held only for map operations, never across an `.await`.

use crate::game::directory::{Change, DirectorySink};
use crate::game::event::RoomEvent;
use crate::game::outbox::encode;
use crate::game::token::token_hash;
use crate::metrics::RoomCounts;
use jchomp_protocol::wire::{RoomStatus, RoomSummary, ServerMessage};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// One registered room.
#[derive(Debug)]
struct Entry {
    /// Creation order, to list rooms oldest first.
    order: u64,
    tx: mpsc::Sender<RoomEvent>,
    summary: RoomSummary,
}

#[derive(Debug, Default)]
struct Inner {
    rooms: HashMap<String, Entry>,
    /// Token hash → room id.
    tokens: HashMap<String, String>,
    created: u64,
    /// Grows with every change to the room list.
    generation: u64,
    /// The encoded `rooms` message of `generation`, shared by every `list_rooms` answer until
    /// the list changes (so that clients asking again and again cost neither CPU nor memory).
    encoded: Option<(u64, Utf8Bytes)>,
}

/// The rooms and seat tokens the server holds.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    /// In a cluster, where changes to rooms and tokens are told (to the shared directory).
    directory: std::sync::OnceLock<DirectorySink>,
}

/// Every rooms slot is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LobbyFull;

impl Lobby {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        crate::sync::lock(&self.inner)
    }

    /// From now on, tells the cluster's directory every change (set once, at start).
    pub(crate) fn set_directory(&self, sink: DirectorySink) {
        let _ = self.directory.set(sink);
    }

    /// Returns once the cluster's directory holds every change told so far (at once outside a
    /// cluster).
    pub(crate) async fn directory_written(&self) {
        if let Some(d) = self.directory.get() {
            d.written().await;
        }
    }

    /// Tells the directory a change, in a cluster.
    fn tell(&self, change: impl FnOnce() -> Change) {
        if let Some(d) = self.directory.get() {
            d.tell(change());
        }
    }

    /// Registers a new room under a fresh random id, unless `max_rooms` rooms exist.
    /// `summary` builds the room's first summary from its id.
    pub(crate) fn register(
        &self,
        max_rooms: usize,
        tx: mpsc::Sender<RoomEvent>,
        summary: impl FnOnce(&str) -> RoomSummary,
    ) -> Result<String, LobbyFull> {
        let mut inner = self.lock();
        if inner.rooms.len() >= max_rooms {
            return Err(LobbyFull);
        }
        let id = loop {
            let id = new_room_id();
            if !inner.rooms.contains_key(&id) {
                break id;
            }
        };
        Self::insert(&mut inner, id.clone(), tx, summary);
        self.tell(|| Change::Room(inner.rooms[&id].summary.clone()));
        Ok(id)
    }

    /// Registers a room brought back from the database under its own id (whatever the room
    /// cap: it was admitted before the restart). Returns `false` if the id is taken.
    pub(crate) fn register_restored(
        &self,
        id: &str,
        tx: mpsc::Sender<RoomEvent>,
        summary: impl FnOnce(&str) -> RoomSummary,
    ) -> bool {
        let mut inner = self.lock();
        if inner.rooms.contains_key(id) {
            return false;
        }
        Self::insert(&mut inner, id.to_string(), tx, summary);
        self.tell(|| Change::Room(inner.rooms[id].summary.clone()));
        true
    }

    fn insert(
        inner: &mut Inner,
        id: String,
        tx: mpsc::Sender<RoomEvent>,
        summary: impl FnOnce(&str) -> RoomSummary,
    ) {
        inner.created += 1;
        let entry = Entry {
            order: inner.created,
            tx,
            summary: summary(&id),
        };
        inner.rooms.insert(id, entry);
        inner.generation += 1;
    }

    /// The channel of a room.
    pub(crate) fn room(&self, id: &str) -> Option<mpsc::Sender<RoomEvent>> {
        self.lock().rooms.get(id).map(|e| e.tx.clone())
    }

    /// The room a seat token belongs to, with its channel.
    pub(crate) fn room_for_token(&self, token: &str) -> Option<(String, mpsc::Sender<RoomEvent>)> {
        let hash = token_hash(token);
        let inner = self.lock();
        let id = inner.tokens.get(&hash)?;
        inner.rooms.get(id).map(|e| (id.clone(), e.tx.clone()))
    }

    /// Replaces a room's summary.
    pub(crate) fn publish(&self, summary: RoomSummary) {
        let mut inner = self.lock();
        if let Some(e) = inner.rooms.get_mut(&summary.room) {
            self.tell(|| Change::Room(summary.clone()));
            e.summary = summary;
            inner.generation += 1;
        }
    }

    /// Records the hash of a seat token of a room ([`token_hash`]).
    pub(crate) fn add_token(&self, hash: &str, room: &str) {
        let mut inner = self.lock();
        inner.tokens.insert(hash.to_string(), room.to_string());
        self.tell(|| Change::Token {
            hash: hash.to_string(),
            room: room.to_string(),
        });
    }

    /// Forgets a seat token by its hash.
    pub(crate) fn remove_token(&self, hash: &str) {
        let mut inner = self.lock();
        inner.tokens.remove(hash);
        self.tell(|| Change::Untoken(hash.to_string()));
    }

    /// Removes a room and the given token hashes.
    pub(crate) fn remove(&self, id: &str, tokens: &[String]) {
        self.forget(id, tokens);
        self.tell(|| Change::Removed {
            id: id.to_string(),
            tokens: tokens.to_vec(),
        });
    }

    /// Removes a room and the given token hashes from this node only: in a cluster the room
    /// stays in the directory, for another node to take it over (a game in play as the node
    /// shuts down).
    pub(crate) fn forget(&self, id: &str, tokens: &[String]) {
        let mut inner = self.lock();
        inner.rooms.remove(id);
        inner.generation += 1;
        for t in tokens {
            inner.tokens.remove(t);
        }
    }

    /// The ids of every room.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.lock().rooms.keys().cloned().collect()
    }

    /// Whether room `id` (one of this node's) is rated.
    pub(crate) fn is_rated(&self, id: &str) -> bool {
        self.lock()
            .rooms
            .get(id)
            .is_some_and(|e| e.summary.config.rated)
    }

    /// Every room's summary, oldest room first.
    #[cfg(test)]
    pub(crate) fn summaries(&self) -> Vec<RoomSummary> {
        self.snapshot().1
    }

    /// The list generation and every room's summary, oldest room first.
    fn snapshot(&self) -> (u64, Vec<RoomSummary>) {
        let inner = self.lock();
        let generation = inner.generation;
        let mut rooms: Vec<(u64, RoomSummary)> = inner
            .rooms
            .values()
            .map(|e| (e.order, e.summary.clone()))
            .collect();
        drop(inner);
        rooms.sort_by_key(|(order, _)| *order);
        (generation, rooms.into_iter().map(|(_, s)| s).collect())
    }

    /// The `rooms` message answering `list_rooms`, encoded once per change of the list and
    /// shared by every answer (encoding happens outside the lock).
    pub(crate) fn rooms_message(&self) -> Utf8Bytes {
        {
            let inner = self.lock();
            if let Some((generation, text)) = &inner.encoded
                && *generation == inner.generation
            {
                return text.clone();
            }
        }
        let (generation, rooms) = self.snapshot();
        let text = encode(&ServerMessage::Rooms { rooms });
        let mut inner = self.lock();
        if inner.generation == generation {
            inner.encoded = Some((generation, text.clone()));
        }
        text
    }

    /// Rooms whose every seat is a server bot and whose game is not over.
    pub(crate) fn bot_games(&self) -> usize {
        self.lock()
            .rooms
            .values()
            .filter(|e| {
                e.summary.status != RoomStatus::Finished
                    && e.summary
                        .seats
                        .iter()
                        .all(|s| s.as_ref().is_some_and(|s| s.bot))
            })
            .count()
    }

    /// Rooms by status.
    pub(crate) fn counts(&self) -> RoomCounts {
        let mut counts = RoomCounts::default();
        for e in self.lock().rooms.values() {
            match e.summary.status {
                RoomStatus::Waiting => counts.waiting += 1,
                RoomStatus::Playing => counts.playing += 1,
                RoomStatus::Finished => counts.finished += 1,
            }
        }
        counts
    }
}

/// A random room id: 10 characters of base32 (50 random bits).
fn new_room_id() -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut bits = uuid::Uuid::new_v4().as_u128();
    (0..10)
        .map(|_| {
            let c = ALPHABET[(bits & 31) as usize] as char;
            bits >>= 5;
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Room `id` waiting on a 4×4 board, both seats free.
    fn summary(id: &str) -> RoomSummary {
        jchomp_testkit::fixtures::room_summary(id, "4x4 poison 0,0")
    }

    #[test]
    fn registers_up_to_the_cap_and_lists_in_order() {
        let lobby = Lobby::default();
        let (tx, _rx) = mpsc::channel(1);
        let a = lobby.register(2, tx.clone(), summary).unwrap();
        let b = lobby.register(2, tx.clone(), summary).unwrap();
        assert_ne!(a, b);
        assert_eq!(lobby.register(2, tx.clone(), summary), Err(LobbyFull));
        let ids: Vec<String> = lobby.summaries().into_iter().map(|s| s.room).collect();
        assert_eq!(ids, [a.clone(), b.clone()]);
        lobby.add_token(&token_hash("t"), &a);
        assert_eq!(lobby.room_for_token("t").map(|(id, _)| id), Some(a.clone()));
        assert!(
            lobby.room_for_token(&token_hash("t")).is_none(),
            "the hash is no token"
        );
        lobby.remove(&a, &[token_hash("t")]);
        assert!(lobby.room_for_token("t").is_none());
        assert!(lobby.room(&a).is_none());
        assert_eq!(lobby.counts().waiting, 1);
        // A restored room keeps its id, past the cap, but never takes another room's.
        assert!(lobby.register_restored("restored12", tx.clone(), summary));
        assert!(!lobby.register_restored(&b, tx, summary));
        assert_eq!(lobby.summaries().len(), 2);
    }

    #[test]
    fn the_room_list_is_encoded_once_per_change() {
        let lobby = Lobby::default();
        let (tx, _rx) = mpsc::channel(1);
        let a = lobby.register(5, tx.clone(), summary).unwrap();
        let first = lobby.rooms_message();
        let again = lobby.rooms_message();
        assert_eq!(
            first.as_str().as_ptr(),
            again.as_str().as_ptr(),
            "shared, not re-encoded"
        );
        let mut changed = summary(&a);
        changed.status = RoomStatus::Playing;
        lobby.publish(changed);
        let after = lobby.rooms_message();
        assert!(after.as_str().contains("playing"), "{}", after.as_str());
        lobby.register(5, tx, summary).unwrap();
        let text = lobby.rooms_message();
        let msg: ServerMessage = serde_json::from_str(text.as_str()).unwrap();
        assert!(matches!(msg, ServerMessage::Rooms { rooms } if rooms.len() == 2));
    }

    #[test]
    fn ids_and_tokens_look_random() {
        let id = new_room_id();
        assert_eq!(id.len(), 10);
    }
}
