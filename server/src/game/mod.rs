//! The game: rooms ([`room`]), each a task that owns its state; the [`lobby`] that lists them
//! and finds a room by id or seat token; the analysis of positions ([`analysis`]); and the
//! [`outbox`] through which a room talks to a client. The game stores through
//! [`crate::store`] and knows neither sockets nor the cluster: the cluster plugs in through
//! the lobby's directory sink ([`directory`]) and the store's replica.

pub(crate) mod analysis;
pub(crate) mod directory;
pub(crate) mod event;
pub(crate) mod lobby;
pub(crate) mod outbox;
pub(crate) mod refusal;
pub(crate) mod room;
pub(crate) mod token;
