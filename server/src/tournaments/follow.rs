//! Following one game of a tournament: a spectator of its room whose queue is read here, not by
//! a connection; the game's result is handed to the tournament's task as it is announced (and so
//! only once the room has made it durable). The follower then stops spectating, so that a
//! finished room nobody else watches closes at once instead of lingering.

use super::event::Event;
use crate::game::event::RoomEvent;
use crate::game::outbox::{ConnId, Outgoing, Peer, PeerSignal, next_conn_id};
use crate::game::refusal::Refusal;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::wire::{RoomStatus, ServerMessage};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Messages the spectator's queue holds: more than a game of the largest board has moves, so
/// that nothing is dropped while the task is busy.
const QUEUE: usize = 1024;

/// Spectates `room` and tells `tournament` how game `game` ended (`None`: the room went away
/// without saying, as it does when the server shuts down). The request to spectate is queued
/// in the room's channel before this returns, so a room made but not yet started (its channel
/// empty) takes it before any move: a game between quick bots may otherwise end, and its room
/// close, before a spectator asks. A room of another node of a cluster (`relayed`: its channel
/// is a relay, which re-routes to the room's next node if its node dies) is held on to until
/// the end; a room of this node only weakly, so that its end closes the channel.
pub(super) fn follow(
    room: mpsc::Sender<RoomEvent>,
    game: usize,
    tournament: mpsc::Sender<Event>,
    relayed: bool,
) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let conn = next_conn_id();
    let peer = Peer::new(conn, tx, Arc::new(PeerSignal::default()));
    let (reply, answer) = oneshot::channel();
    let waiting = match room.try_send(RoomEvent::Spectate { peer, reply }) {
        Ok(()) => None,
        Err(mpsc::error::TrySendError::Full(ev)) => Some(ev),
        Err(mpsc::error::TrySendError::Closed(_)) => {
            tokio::spawn(async move {
                let _ = tournament.send(Event::Ended { game, result: None }).await;
            });
            return;
        }
    };
    tokio::spawn(async move {
        let result = watch(room, waiting, conn, rx, answer, relayed).await;
        let _ = tournament.send(Event::Ended { game, result }).await;
    });
}

/// Waits for the spectator `conn` to be taken (first sending the request `waiting`, if the
/// room's channel was full), then for the result on `rx`.
async fn watch(
    room: mpsc::Sender<RoomEvent>,
    waiting: Option<RoomEvent>,
    conn: ConnId,
    mut rx: mpsc::Receiver<Outgoing>,
    answer: oneshot::Receiver<Result<(), Refusal>>,
    relayed: bool,
) -> Option<ResultJson> {
    if let Some(ev) = waiting {
        room.send(ev).await.ok()?;
    }
    answer.await.ok()?.ok()?;
    if relayed {
        let result = result_of(&mut rx).await;
        let _ = room.send(RoomEvent::Disconnected { conn }).await;
        return result;
    }
    // Only a weak handle is kept while the game is played, so that the room's channel closes
    // (and `rx` ends) when the room goes away without a result.
    let weak = room.downgrade();
    drop(room);
    let result = result_of(&mut rx).await;
    if let Some(room) = weak.upgrade() {
        let _ = room.send(RoomEvent::Disconnected { conn }).await;
    }
    result
}

/// The result announced on `rx`: the first `room` or `moved` that says the game is finished;
/// `None` if the room closes the spectator first.
async fn result_of(rx: &mut mpsc::Receiver<Outgoing>) -> Option<ResultJson> {
    while let Some(out) = rx.recv().await {
        let text = match out {
            Outgoing::Text(text) => text,
            Outgoing::Close(..) => return None,
            Outgoing::Binary(_) => continue,
        };
        match serde_json::from_str::<ServerMessage>(&text) {
            Ok(ServerMessage::Room(s)) if s.status == RoomStatus::Finished => return s.result,
            Ok(ServerMessage::Moved(m)) if m.status == RoomStatus::Finished => return m.result,
            _ => {}
        }
    }
    None
}
