//! What a room lets `analyze` see: its position at a move index, if it was created with
//! analysis or its game is over.

use super::Refusal;
use super::state::Room;
use crate::game::analysis::{About, Subject};
use jchomp_protocol::wire::{ErrorCode, RoomStatus};

impl Room {
    /// The room's position after `index` moves (the current one when `None`), or why it may
    /// not be analysed: a game in play or waiting in a room created without analysis is
    /// `forbidden` (no help during a game between people), whoever asks.
    pub(super) fn analysis_subject(&self, index: Option<i64>) -> Result<Subject, Refusal> {
        if !self.config_json.analysis && self.status != RoomStatus::Finished {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "room {} was created without analysis; its position may be analysed once its game is over",
                    self.id
                ),
            ));
        }
        Subject::of(About::Room(self.id.clone()), &self.game, index)
    }
}
