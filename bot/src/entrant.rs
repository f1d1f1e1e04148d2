//! The bot client as an entrant of a tournament the server runs: it authenticates as its bot
//! account, joins the tournament, and plays every game the server seats it in (each announced
//! by `tournament_game` and `joined`) with the same player, until the tournament is over. After a
//! dropped connection it resumes the seat it was playing, then joins again on a new connection,
//! which the server takes as the entrant coming back; a server restarting, or a cluster taking
//! the tournament over from a dead node, is waited for.

use crate::client::{
    ClientError, Held, Mover, PlayOptions, Played, authenticate, play_seat, server_error, verdict,
};
use jchomp_protocol::connection::{
    Connection, ConnectionError, UNAVAILABLE_PATIENCE, connect_retry, describe_error,
};
use jchomp_protocol::wire::{
    ClientMessage, ErrorCode, ServerMessage, Standing, TournamentStatus, TournamentView,
};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// How an entry ended.
#[derive(Clone, Debug)]
pub struct Entered {
    /// The games the bot played, in order.
    pub played: Vec<Played>,
    /// The tournament's last view (finished or cancelled).
    pub view: TournamentView,
    /// The bot account's name, as the standings give it.
    pub name: String,
}

impl Entered {
    /// The bot's line of the final standings, and its place (from 1).
    pub fn standing(&self) -> Option<(usize, &Standing)> {
        let at = self
            .view
            .standings
            .iter()
            .position(|s| s.name == self.name)?;
        Some((at + 1, &self.view.standings[at]))
    }

    /// The last line `jchomp-bot play --tournament` prints: the bot's final standing, or why
    /// the tournament was cancelled.
    pub fn summary(&self) -> String {
        if self.view.status == TournamentStatus::Cancelled {
            let why = self.view.cancelled.as_deref().unwrap_or("no reason given");
            return format!("tournament {} cancelled: {why}", self.view.id);
        }
        match self.standing() {
            Some((place, s)) => format!(
                "final standing: place {place} of {} with {} points from {} games (won {} tied {} lost {})",
                self.view.standings.len(),
                s.points.0,
                s.games,
                s.wins,
                s.ties,
                s.losses
            ),
            None => format!("final standing: {} is not in the standings", self.name),
        }
    }
}

/// Whether a tournament in `status` has nothing more to play.
fn over(status: TournamentStatus) -> bool {
    matches!(
        status,
        TournamentStatus::Finished | TournamentStatus::Cancelled
    )
}

/// The pause between tries to enter again while the server still holds the old connection
/// (`already_entered`) or cannot reach the tournament (`unavailable`).
const REENTRY_PAUSE: Duration = Duration::from_millis(500);

/// [`enter`] after a dropped connection: it reconnects as a resume does (the server may be
/// restarting, or a cluster's node dying: [`connect_retry`]), and enters again while the server
/// still holds the old connection (`already_entered`) or cannot reach the node running the
/// tournament (`unavailable`, while a cluster takes it over), for up to
/// [`UNAVAILABLE_PATIENCE`].
async fn reenter(
    options: &PlayOptions,
    id: &str,
) -> Result<(Connection, String, TournamentView), ClientError> {
    let give_up = Instant::now() + UNAVAILABLE_PATIENCE;
    loop {
        let ws = connect_retry(&options.url, options.reconnects.max(1))
            .await
            .map_err(ClientError::Reconnect)?;
        match enter_on(ws, options, id).await {
            Err(ClientError::Refused {
                code: ErrorCode::AlreadyEntered | ErrorCode::Unavailable,
                ..
            }) if Instant::now() + REENTRY_PAUSE < give_up => {
                tokio::time::sleep(REENTRY_PAUSE).await;
            }
            entered => return entered,
        }
    }
}

/// Connects, authenticates with `options.token` and joins tournament `id`; returns the
/// connection, the account's name and the tournament's view.
async fn enter(
    options: &PlayOptions,
    id: &str,
) -> Result<(Connection, String, TournamentView), ClientError> {
    let ws = Connection::connect(&options.url).await?;
    enter_on(ws, options, id).await
}

/// [`enter`] on a connection made already.
async fn enter_on(
    mut ws: Connection,
    options: &PlayOptions,
    id: &str,
) -> Result<(Connection, String, TournamentView), ClientError> {
    let Some(name) = authenticate(&mut ws, options).await? else {
        return Err(server_error(
            ErrorCode::Forbidden,
            "a tournament is entered under a bot account: give its --token".to_string(),
        ));
    };
    ws.send(&ClientMessage::JoinTournament {
        tournament: id.to_string(),
    })
    .await?;
    loop {
        match ws.recv_within(options.wait).await? {
            ServerMessage::Tournament(view) if view.id == id => return Ok((ws, name, *view)),
            ServerMessage::Error { code, message } => return Err(server_error(code, message)),
            _ => {}
        }
    }
}

/// Joins tournament `id` and plays each game it is seated in until the tournament is over;
/// `log` receives one line per event worth telling a person.
pub async fn play_tournament(
    options: &PlayOptions,
    id: &str,
    log: &mut (dyn FnMut(String) + Send),
) -> Result<Entered, ClientError> {
    let mut mover = Mover::new(options).await?;
    let (mut ws, name, mut view) = enter(options, id).await?;
    log(format!(
        "entered tournament {id} as {name} ({} entrants)",
        view.entrants.len()
    ));
    let mut played = Vec::new();
    let mut queue: VecDeque<ServerMessage> = VecDeque::new();
    while !over(view.status) {
        let msg = match queue.pop_front() {
            Some(msg) => msg,
            None => match ws.recv_within(options.wait).await {
                Ok(msg) => msg,
                // Between games a tournament may be quiet for long: wait on.
                Err(ConnectionError::Timeout(_)) => continue,
                Err(e) => {
                    log(format!("connection lost ({e}); entering again"));
                    (ws, _, view) = reenter(options, id).await?;
                    continue;
                }
            },
        };
        match msg {
            ServerMessage::Tournament(v) if v.id == id => view = *v,
            ServerMessage::TournamentGame { room, round, .. } => {
                log(format!("round {round}: seated in room {room}"));
            }
            ServerMessage::Joined { room, seat, token } => {
                let held = Held { room, seat, token };
                let other = &mut |m| queue.push_back(m);
                let (game, _, replaced) =
                    play_seat(options, &mut ws, &held, &mut mover, log, other).await?;
                log(format!(
                    "game {}: room {} seat {}: {} after {} moves",
                    played.len() + 1,
                    game.room,
                    game.seat,
                    verdict(game.score),
                    game.moves
                ));
                played.push(game);
                if replaced {
                    // The seat was resumed on a connection the tournament does not know.
                    log("the seat was resumed on a new connection; entering again".into());
                    ws.close().await;
                    (ws, _, view) = reenter(options, id).await?;
                }
            }
            ServerMessage::Error { code, message } => {
                log(format!("server error: {}", describe_error(code, &message)));
            }
            _ => {}
        }
    }
    ws.close().await;
    Ok(Entered { played, view, name })
}
