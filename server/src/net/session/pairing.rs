//! The quick-pairing requests of one connection (`list_presets`, `seek`, `cancel_seek`), and
//! taking up the room a wave seated it in: a room of this node it is in already; a seat in a
//! room of another node of the cluster it takes with the seat's token, as a `resume` does.

use super::{Member, Session};
use crate::net::request::checked_name;
use crate::pairing::{Found, Seek};
use crate::ratings::{category, initial};
use jchomp_protocol::wire::{ErrorCode, PresetInfo, ServerMessage};
use std::time::Duration;
use tokio::sync::oneshot;

/// The name a guest's seat gets when its `seek` gives none.
const GUEST: &str = "guest";

/// How long a connection that asked to stop waiting, too late, waits for the seat a wave gave
/// it (in a cluster it comes from the node that paired).
const SEAT_WAIT: Duration = Duration::from_secs(10);

impl Session {
    /// Answers `list_presets`.
    pub(super) async fn list_presets(&self) {
        let pairing = &self.ctx.pairing;
        let counts = pairing.counts().await;
        let presets = pairing
            .presets()
            .iter()
            .zip(counts.into_iter().chain(std::iter::repeat(0)))
            .map(|(p, waiting)| PresetInfo {
                name: p.name.to_string(),
                title: p.title.to_string(),
                config: p.config.clone(),
                waiting,
            })
            .collect();
        self.reply(&ServerMessage::Presets {
            presets,
            bot_patience_secs: pairing.bot_patience().as_secs(),
        });
    }

    /// Puts the connection in a preset's pool (out of any room it is in, and any other pool).
    pub(super) async fn seek(&mut self, preset: String, name: Option<String>, bots: bool) {
        let pairing = self.ctx.pairing.clone();
        let Some(index) = pairing.find(&preset) else {
            let names: Vec<&str> = pairing.presets().iter().map(|p| p.name).collect();
            let message = format!("no preset {preset:?}; the presets are {}", names.join(", "));
            return self.bad_request(message);
        };
        let name = match checked_name(&self.seat_name(name.unwrap_or_else(|| GUEST.to_string()))) {
            Ok(n) => n,
            Err(e) => return self.bad_request(e.to_string()),
        };
        if self.ctx.shutting_down() {
            let message = "the server is shutting down".to_string();
            return self.error(ErrorCode::ShuttingDown, message);
        }
        if !self.vacate().await {
            return;
        }
        let category = category(&pairing.presets()[index].config);
        let rating = self.rating_in(&category).await;
        let (found, rx) = oneshot::channel();
        let seek = Seek {
            peer: self.peer.clone(),
            name,
            account: self.login.is_some(),
            rating,
            bots,
            preset: index,
            found,
        };
        // The pairing task tells the connection `seeking` (before any wave can pair it).
        match pairing.seek(seek).await {
            true => self.seeking = Some(rx),
            false if self.ctx.shutting_down() => {
                let message = "the server is shutting down".to_string();
                self.error(ErrorCode::ShuttingDown, message);
            }
            false => {
                let message = "the cluster cannot be reached now; nothing was done: send it again";
                self.error(ErrorCode::Unavailable, message.to_string());
            }
        }
    }

    /// Answers `cancel_seek`.
    pub(super) async fn cancel_seek(&mut self) {
        if self.seeking.is_none() {
            let message = "you are not waiting in a pool".to_string();
            return self.error(ErrorCode::Forbidden, message);
        }
        if !self.stop_seeking().await {
            self.await_pairing().await;
            let message = "too late: you were paired (see paired)".to_string();
            self.error(ErrorCode::Forbidden, message);
        }
    }

    /// Takes the connection out of its pool, telling it `seek_ended`; false if a wave seated
    /// it first (its room is then waiting in `seeking`).
    pub(super) async fn stop_seeking(&mut self) -> bool {
        if self.seeking.is_none() {
            return true;
        }
        let pairing = self.ctx.pairing.clone();
        match pairing.cancel(self.peer.id).await {
            Some(index) => {
                self.seeking = None;
                let preset = pairing.presets()[index].name.to_string();
                self.reply(&ServerMessage::SeekEnded { preset });
                true
            }
            None => false,
        }
    }

    /// Becomes a member of the room a wave seated the connection in, if one did.
    pub(super) async fn take_up_pairing(&mut self) {
        if let Some(found) = self.found_now() {
            self.take_up(Some(found)).await;
        }
    }

    /// After asking to stop waiting too late: waits for the seat the wave gave (a while), and
    /// takes it up.
    pub(super) async fn await_pairing(&mut self) {
        if let Ok(found) = tokio::time::timeout(SEAT_WAIT, self.paired()).await {
            self.take_up(found).await;
        }
        self.seeking = None;
    }

    /// What a wave gave the connection, if it has arrived (the connection then waits no more).
    pub(super) fn found_now(&mut self) -> Option<Found> {
        let rx = self.seeking.as_mut()?;
        match rx.try_recv() {
            Ok(found) => {
                self.seeking = None;
                Some(found)
            }
            Err(oneshot::error::TryRecvError::Empty) => None,
            Err(oneshot::error::TryRecvError::Closed) => {
                self.seeking = None;
                None
            }
        }
    }

    /// Waits until a wave has seated the connection: its seat, or none if its waiting ended
    /// without one. Never, while the connection waits in no pool.
    async fn paired(&mut self) -> Option<Found> {
        match &mut self.seeking {
            Some(rx) => rx.await.ok(),
            None => std::future::pending().await,
        }
    }

    /// Waits until a wave or a tournament the account entered has seated the connection: its
    /// seat, or none if its waiting in a pool ended without one.
    pub(crate) async fn seated(&mut self) -> Option<Found> {
        let tournament = &mut self.tournament_seats.1;
        match &mut self.seeking {
            Some(rx) => tokio::select! {
                found = rx => found.ok(),
                Some(found) = tournament.recv() => Some(found),
            },
            None => tournament.recv().await,
        }
    }

    /// Takes up what a wave gave the connection: the room it is in, or the seat of another
    /// node's room it takes with its token.
    pub(crate) async fn take_up(&mut self, found: Option<Found>) {
        self.seeking = None;
        match found {
            Some(Found::Here { room, tx }) => self.member = Some(Member { room, tx }),
            // Boxed: a resume may wait for a seat in turn (`vacate`).
            Some(Found::Elsewhere { token }) => Box::pin(self.resume(token)).await,
            None => {}
        }
    }

    /// The connection's rating in `category`: its account's, or a newcomer's (a guest's, or
    /// when the ratings cannot be read now).
    async fn rating_in(&self, category: &str) -> f64 {
        let start = initial(category).rating;
        let Some(login) = &self.login else {
            return start;
        };
        match self
            .ctx
            .accounts
            .rating(&login.identity.name, category)
            .await
        {
            Ok(rating) => rating.map_or(start, |r| r.rating),
            Err(e) => {
                tracing::warn!(error = %e, "a rating could not be read for pairing");
                start
            }
        }
    }
}
