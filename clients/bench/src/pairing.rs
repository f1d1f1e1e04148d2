//! The pairing mode's connections: reading a preset's game ([`preset_config`]), one player who
//! seeks in a pool until seated ([`seek_player`]), one room made by a creator and filled by
//! joiners who join it by id ([`join_group`]), and a player who waits first beside one who
//! arrives later ([`second_arrives`]); each player leaves its room once seated, so that rooms
//! close and the load stays bounded.

use super::codec::{code_name, send_json};
use super::socket::{Target, Ws, connect};
use super::stats::{Errors, Latencies};
use futures_util::StreamExt;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// Time one awaited answer may take (a seat from a wave included) before the player gives up.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// What pairing connections counted: players seated, their send→`joined` latencies, errors.
#[derive(Clone, Debug, Default)]
pub struct PairTally {
    /// Players measured who got their seat.
    pub seated: u64,
    /// Time from each measured request sent to its `joined`.
    pub(crate) latencies: Latencies,
    /// Rooms in which every seat was taken.
    pub games: u64,
    /// Leaves sent right after a wave's `joined` that the server refused as from a connection
    /// not yet in the room, and sent again a little later.
    pub early_leaves: u64,
    /// What went wrong.
    pub errors: Errors,
}

impl PairTally {
    /// Adds `other` to this tally.
    pub(crate) fn merge(&mut self, other: PairTally) {
        self.seated += other.seated;
        self.latencies.merge(other.latencies);
        self.games += other.games;
        self.early_leaves += other.early_leaves;
        self.errors.merge(other.errors);
    }

    /// Records one seat taken `latency` after its request.
    fn seat(&mut self, latency: Duration) {
        self.seated += 1;
        self.latencies.record(latency);
    }
}

/// Reads the next message `pick` returns something for, skipping the others, within
/// [`ANSWER_TIMEOUT`]; an `error` from the server ends the wait with its code.
pub(crate) async fn await_msg<T>(
    ws: &mut Ws,
    mut pick: impl FnMut(ServerMessage) -> Option<T>,
) -> anyhow::Result<T> {
    let wait = async {
        while let Some(frame) = ws.next().await {
            let Message::Text(text) = frame? else {
                continue;
            };
            match serde_json::from_str::<ServerMessage>(&text)? {
                ServerMessage::Error { code, message } => {
                    anyhow::bail!("{}: {message}", code_name(&code))
                }
                msg => {
                    if let Some(t) = pick(msg) {
                        return Ok(t);
                    }
                }
            }
        }
        anyhow::bail!("the connection closed before the answer")
    };
    tokio::time::timeout(ANSWER_TIMEOUT, wait)
        .await
        .unwrap_or_else(|_| anyhow::bail!("no answer within {} s", ANSWER_TIMEOUT.as_secs()))
}

/// The room id of a `joined`.
fn joined(msg: ServerMessage) -> Option<String> {
    match msg {
        ServerMessage::Joined { room, .. } => Some(room),
        _ => None,
    }
}

/// Sends `msg` and returns the room id of the `joined` that follows, and the time it took.
async fn request_seat(ws: &mut Ws, msg: &ClientMessage) -> anyhow::Result<(String, Duration)> {
    send_json(ws, msg).await?;
    let sent = Instant::now();
    let room = await_msg(ws, joined).await?;
    Ok((room, sent.elapsed()))
}

/// Time before a refused leave is sent again.
pub(crate) const LEAVE_AGAIN: Duration = Duration::from_millis(50);

/// Leaves the room (in a game in play the leaver's seat loses: the game ends `abandoned`, and
/// the room closes once nobody is left in it) and closes the connection.
async fn leave(mut ws: Ws) -> anyhow::Result<()> {
    leave_room(&mut ws).await?;
    let _ = ws.close(None).await;
    Ok(())
}

/// Sends `leave` and waits for its `left`.
async fn leave_room(ws: &mut Ws) -> anyhow::Result<()> {
    send_json(ws, &ClientMessage::Leave).await?;
    await_msg(ws, |m| {
        matches!(m, ServerMessage::Left { .. }).then_some(())
    })
    .await
}

/// Leaves the room a wave seated the connection in, and closes the connection: a `leave` the
/// server refuses as from a connection not in a room (its seat is handed to the connection a
/// moment after the room sent `joined`) is sent again [`LEAVE_AGAIN`] later. Says whether it
/// had to.
async fn leave_paired(mut ws: Ws) -> anyhow::Result<bool> {
    let again = match leave_room(&mut ws).await {
        Ok(()) => false,
        Err(e) if e.to_string().starts_with("forbidden") => true,
        Err(e) => return Err(e),
    };
    if again {
        tokio::time::sleep(LEAVE_AGAIN).await;
        leave_room(&mut ws).await?;
    }
    let _ = ws.close(None).await;
    Ok(again)
}

/// A seek as guest `name` in `preset`'s pool.
fn seek(preset: &str, name: String) -> ClientMessage {
    ClientMessage::Seek {
        preset: preset.to_owned(),
        name: Some(name),
        bots: false,
    }
}

/// The game `preset`'s rooms play, asked of the server on connection `n` of `target`.
pub(crate) async fn preset_config(
    target: &Target,
    n: usize,
    preset: &str,
) -> anyhow::Result<ConfigJson> {
    let mut ws = connect(target, n).await?;
    send_json(&mut ws, &ClientMessage::ListPresets).await?;
    let presets = await_msg(&mut ws, |m| match m {
        ServerMessage::Presets { presets, .. } => Some(presets),
        _ => None,
    })
    .await?;
    let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
    let known = names.join(", ");
    let found = presets.iter().find(|p| p.name == preset);
    let found =
        found.ok_or_else(|| anyhow::anyhow!("no preset {preset:?} (the server has {known})"));
    let config = found?.config.clone();
    let _ = ws.close(None).await;
    Ok(config)
}

/// Player `n`: at `start` connects, seeks in `preset`'s pool, is measured from the seek to its
/// `joined`, then leaves.
pub(crate) async fn seek_player(
    target: &Target,
    n: usize,
    preset: &str,
    start: Instant,
) -> PairTally {
    let mut tally = PairTally::default();
    tokio::time::sleep_until(start).await;
    let mut ws = match connect(target, n).await {
        Ok(ws) => ws,
        Err(e) => {
            tally.errors.add("connect", e);
            return tally;
        }
    };
    match request_seat(&mut ws, &seek(preset, format!("p{n}"))).await {
        Ok((_, latency)) => tally.seat(latency),
        Err(e) => {
            tally.errors.add("seek", e);
            return tally;
        }
    }
    match leave_paired(ws).await {
        Ok(again) => tally.early_leaves += u64::from(again),
        Err(e) => tally.errors.add("leave", e),
    }
    tally
}

/// One room of `starts.len()` seats: the first player creates it with `config` at its start,
/// each other player connects at its start and joins it by id, measured from `join_room` to
/// its `joined`; then every player leaves. `n` numbers the first connection.
pub(crate) async fn join_group(
    target: &Target,
    n: usize,
    config: &ConfigJson,
    starts: &[Instant],
) -> PairTally {
    let mut tally = PairTally::default();
    let mut seated = Vec::new();
    let mut room = String::new();
    for (k, &start) in starts.iter().enumerate() {
        tokio::time::sleep_until(start).await;
        let mut ws = match connect(target, n + k).await {
            Ok(ws) => ws,
            Err(e) => {
                tally.errors.add("connect", e);
                break;
            }
        };
        let name = format!("p{}", n + k);
        let msg = if k == 0 {
            ClientMessage::CreateRoom {
                name,
                config: config.clone(),
                bots: None,
            }
        } else {
            ClientMessage::JoinRoom {
                room: room.clone(),
                name,
                seat: None,
            }
        };
        match request_seat(&mut ws, &msg).await {
            Ok((id, latency)) => {
                if k == 0 {
                    room = id;
                } else {
                    tally.seat(latency);
                }
                seated.push(ws);
            }
            Err(e) => {
                tally.errors.add(if k == 0 { "create" } else { "join" }, e);
                break;
            }
        }
    }
    if seated.len() == starts.len() {
        tally.games = 1;
    }
    for ws in seated {
        if let Err(e) = leave(ws).await {
            tally.errors.add("leave", e);
        }
    }
    tally
}

/// What one "second person arrives" pair measured: the first's and the second's send→`joined`.
#[derive(Clone, Debug, Default)]
pub struct WaitTally {
    /// The player who waited first.
    pub(crate) first: Latencies,
    /// The player who arrived `gap` later.
    pub(crate) second: Latencies,
    /// Leaves sent again (see [`PairTally::early_leaves`]).
    pub(crate) early_leaves: u64,
    /// What went wrong.
    pub errors: Errors,
}

/// A pair of two: the first player seeks in `preset`'s pool and, once it is `seeking`, waits
/// `gap` alone before the second seeks; both are measured from their seek to their `joined`,
/// then leave. `n` numbers the first connection.
pub(crate) async fn second_arrives(
    target: &Target,
    n: usize,
    preset: &str,
    gap: Duration,
    tally: &mut WaitTally,
) -> anyhow::Result<()> {
    let mut first = connect(target, n).await?;
    let mut second = connect(target, n + 1).await?;
    send_json(&mut first, &seek(preset, format!("p{n}"))).await?;
    let first_sent = Instant::now();
    await_msg(&mut first, |m| {
        matches!(m, ServerMessage::Seeking { .. }).then_some(())
    })
    .await?;
    tokio::time::sleep_until(first_sent + gap).await;
    let (seated_second, second_latency) =
        request_seat(&mut second, &seek(preset, format!("p{}", n + 1))).await?;
    // The same wave seated both: the first's `joined` is read just after the second's.
    let seated_first = await_msg(&mut first, joined).await?;
    let first_latency = first_sent.elapsed();
    anyhow::ensure!(
        seated_first == seated_second,
        "the two were seated in different rooms ({seated_first}, {seated_second}): someone else was waiting"
    );
    tally.first.record(first_latency);
    tally.second.record(second_latency);
    for ws in [first, second] {
        tally.early_leaves += u64::from(leave_paired(ws).await?);
    }
    Ok(())
}
