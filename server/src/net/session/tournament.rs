//! The tournament requests of one connection (`create_tournament`, `list_tournaments`,
//! `watch_tournament`, `join_tournament`, `withdraw_tournament`), handed to the tournaments'
//! tasks.

use super::Session;
use crate::net::request::plausible_id;
use crate::store::accounts::AccountKind;
use crate::tournaments::Link;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, ServerMessage};

impl Session {
    /// Answers a tournament request.
    pub(super) async fn tournament_request(&mut self, msg: ClientMessage) {
        let tournaments = self.ctx.tournaments.clone();
        match msg {
            ClientMessage::CreateTournament { tournament } => {
                if self.login.is_none() {
                    let message = "log in to create a tournament".to_string();
                    return self.error(ErrorCode::Forbidden, message);
                }
                if self.ctx.shutting_down() {
                    let message = "the server is shutting down".to_string();
                    return self.error(ErrorCode::ShuttingDown, message);
                }
                let by = self.login.as_ref().map(|l| l.identity.name.clone());
                let by = by.unwrap_or_default();
                if let Err(r) = tournaments.create(tournament, self.peer.clone(), by).await {
                    self.refused(r);
                }
            }
            ClientMessage::ListTournaments => {
                let list = tournaments.list().await;
                self.reply(&ServerMessage::Tournaments { tournaments: list });
            }
            ClientMessage::WatchTournament {
                tournament,
                all_games,
            } => {
                if !self.plausible_tournament(&tournament) {
                    return;
                }
                if let Err(r) = tournaments
                    .watch(&tournament, self.peer.clone(), all_games)
                    .await
                {
                    self.refused(r);
                }
            }
            ClientMessage::JoinTournament { tournament } => self.join_tournament(tournament).await,
            ClientMessage::WithdrawTournament { tournament } => {
                let Some(login) = &self.login else {
                    let message = "log in to withdraw from a tournament".to_string();
                    return self.error(ErrorCode::Forbidden, message);
                };
                if !self.plausible_tournament(&tournament) {
                    return;
                }
                let name = login.identity.name.clone();
                let peer = self.peer.clone();
                if let Err(r) = tournaments.withdraw(&tournament, &name, peer).await {
                    self.refused(r);
                }
            }
            _ => {}
        }
    }

    /// Enters the connection's account in a tournament; its games' seats come to this
    /// connection.
    async fn join_tournament(&mut self, tournament: String) {
        let Some(login) = &self.login else {
            let message =
                "log in (or authenticate as a bot account) to enter a tournament".to_string();
            return self.error(ErrorCode::Forbidden, message);
        };
        if !self.plausible_tournament(&tournament) {
            return;
        }
        let name = login.identity.name.clone();
        let bot = login.identity.kind != AccountKind::Person;
        let link = Link {
            peer: self.peer.clone(),
            seats: self.tournament_seats.0.clone(),
        };
        let tournaments = self.ctx.tournaments.clone();
        if let Err(r) = tournaments.join(&tournament, &name, bot, link).await {
            self.refused(r);
        }
    }

    /// Whether `id` may name a tournament; if not, the client is told there is none.
    fn plausible_tournament(&self, id: &str) -> bool {
        let plausible = plausible_id(id);
        if !plausible {
            let message = format!("no tournament has id {id:?}");
            self.error(ErrorCode::NoSuchTournament, message);
        }
        plausible
    }
}
