//! The tournament requests of one connection (`create_tournament`, `list_tournaments`,
//! `watch_tournament`), handed to the tournaments' tasks.

use super::Session;
use crate::net::request::plausible_id;
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
                if let Err(r) = tournaments.create(tournament, self.peer.clone()).await {
                    self.refused(r);
                }
            }
            ClientMessage::ListTournaments => {
                let list = tournaments.list().await;
                self.reply(&ServerMessage::Tournaments { tournaments: list });
            }
            ClientMessage::WatchTournament { tournament } => {
                if !plausible_id(&tournament) {
                    let message = format!("no tournament has id {tournament:?}");
                    return self.error(ErrorCode::NoSuchTournament, message);
                }
                if let Err(r) = tournaments.watch(&tournament, self.peer.clone()).await {
                    self.refused(r);
                }
            }
            _ => {}
        }
    }
}
