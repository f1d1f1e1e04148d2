//! [`Session`]: one connection's protocol state — which room it is in and as what — and the
//! handling of each client message. Room requests go to the room's task; answers about the
//! room come back through the connection's outgoing queue.

mod account;
mod pairing;
mod tournament;

use crate::game::analysis::{About, Subject};
use crate::game::event::{LeaveOutcome, RoomEvent};
use crate::game::outbox::Peer;
use crate::game::refusal::Refusal;
use crate::game::room;
use crate::net::address_cap::AddressKey;
use crate::net::request::{checked_name, parse, plausible_id};
use crate::net::shared::Shared;
use account::Login;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, RejectReason, ServerMessage};
use std::sync::Arc;
use tokio::sync::{Semaphore, mpsc, oneshot};

/// Tournament seats handed to a connection and not yet taken up, at most.
const TOURNAMENT_SEATS: usize = 8;

/// The cluster could not be asked (the client was told `unavailable`).
struct Unreachable;

/// What an `analyze` asks about.
enum Asked {
    /// A room's position.
    Room(String),
    /// A stored game's.
    Game(String),
    /// A position given outright: its rules and the moves that reach it.
    Position(ConfigJson, Vec<[i64; 2]>),
    /// Not exactly one of these.
    Unclear,
}

/// The room a connection is in.
struct Member {
    room: String,
    tx: mpsc::Sender<RoomEvent>,
}

/// One connection's protocol state.
pub(crate) struct Session {
    peer: Peer,
    ctx: Arc<Shared>,
    member: Option<Member>,
    /// This connection's analyses under way, one permit each.
    analyses: Arc<Semaphore>,
    /// The client's address as the login throttle counts it: an IPv4 address, or an IPv6
    /// address's /64 prefix (as the connection cap counts it: one host or home network, which
    /// holds far more than one address).
    address: String,
    /// The account the connection acts as; none for a guest.
    login: Option<Login>,
    /// While it waits in a quick-pairing pool: where the room it is seated in arrives.
    seeking: Option<oneshot::Receiver<crate::pairing::Found>>,
    /// Seats of tournaments the connection's account entered, handed by their tasks (the
    /// sending end is given to each tournament joined).
    tournament_seats: (
        mpsc::Sender<crate::pairing::Found>,
        mpsc::Receiver<crate::pairing::Found>,
    ),
}

impl Session {
    /// A guest's session outside any room, for a client at `address`.
    pub(crate) fn new(peer: Peer, ctx: Arc<Shared>, address: std::net::IpAddr) -> Self {
        let analyses = Arc::new(Semaphore::new(
            ctx.settings.analyses_per_connection.clamp(1, 1024),
        ));
        Session {
            peer,
            ctx,
            member: None,
            analyses,
            address: AddressKey::from(address).to_string(),
            login: None,
            seeking: None,
            tournament_seats: mpsc::channel(TOURNAMENT_SEATS),
        }
    }

    /// Handles one text frame.
    pub(crate) async fn handle_text(&mut self, text: &str) {
        match parse(text) {
            Ok(msg) => self.handle(msg).await,
            Err(e) => self.bad_request(e.to_string()),
        }
    }

    /// Answers a binary frame.
    pub(crate) fn handle_binary(&self) {
        self.bad_request("binary frames are not supported; send JSON text frames".to_string());
    }

    /// Tells the room (if any) that this connection is gone.
    pub(crate) async fn disconnect(&mut self) {
        if let Some(cluster) = &self.ctx.cluster {
            cluster.forget(self.peer.id).await;
        }
        // Out of its pool; a room of this node a wave seated it in meanwhile is told it is gone
        // (a seat of another node's room, not taken, is held for the grace as a dropped one).
        self.stop_seeking().await;
        if let Some(crate::pairing::Found::Here { room, tx }) = self.found_now() {
            self.member = Some(Member { room, tx });
        }
        if let Some(m) = self.member.take() {
            let _ =
                m.tx.send(RoomEvent::Disconnected { conn: self.peer.id })
                    .await;
        }
    }

    async fn handle(&mut self, msg: ClientMessage) {
        self.take_up_pairing().await;
        match msg {
            ClientMessage::ListRooms => self.list_rooms().await,
            ClientMessage::ListPresets => self.list_presets().await,
            ClientMessage::Seek { preset, name, bots } => self.seek(preset, name, bots).await,
            ClientMessage::CancelSeek => self.cancel_seek().await,
            ClientMessage::CreateRoom { name, config, bots } => {
                self.create(name, config, bots).await;
            }
            ClientMessage::JoinRoom { room, name, seat } => self.join(room, name, seat).await,
            ClientMessage::AddBot { bot, seat } => {
                if !self.may_add_bot(bot.as_deref()) {
                    return;
                }
                let peer = self.peer.clone();
                let spec = bot;
                self.tell_room(RoomEvent::AddBot { peer, spec, seat }).await;
            }
            ClientMessage::Spectate { room } => self.spectate(room).await,
            ClientMessage::Move { row, col } => self.play(row, col).await,
            ClientMessage::Resume { token } => self.resume(token).await,
            ClientMessage::Rematch => {
                let peer = self.peer.clone();
                self.tell_room(RoomEvent::Rematch { peer }).await;
            }
            ClientMessage::Sync => {
                let peer = self.peer.clone();
                self.tell_room(RoomEvent::Sync { peer }).await;
            }
            ClientMessage::Leave => self.leave().await,
            ClientMessage::ListGames { limit } => self.list_games(limit).await,
            ClientMessage::GetGame { game } => self.get_game(game).await,
            ClientMessage::Analyze {
                room,
                game,
                config,
                moves,
                index,
            } => {
                let asked = match (room, game, config) {
                    (Some(room), None, None) => Asked::Room(room),
                    (None, Some(game), None) => Asked::Game(game),
                    (None, None, Some(config)) => {
                        Asked::Position(config, moves.unwrap_or_default())
                    }
                    _ => Asked::Unclear,
                };
                self.analyze(asked, index).await;
            }
            msg @ (ClientMessage::Register { .. }
            | ClientMessage::Login { .. }
            | ClientMessage::Authenticate { .. }
            | ClientMessage::Logout { .. }
            | ClientMessage::ChangePassword { .. }
            | ClientMessage::DeleteAccount { .. }
            | ClientMessage::CreateBot { .. }
            | ClientMessage::RenewBotToken { .. }) => self.account_request(msg).await,
            msg @ (ClientMessage::CreateTournament { .. }
            | ClientMessage::ListTournaments
            | ClientMessage::WatchTournament { .. }
            | ClientMessage::JoinTournament { .. }
            | ClientMessage::WithdrawTournament { .. }) => self.tournament_request(msg).await,
        }
    }

    async fn create(&mut self, name: String, config: ConfigJson, bots: Option<Vec<String>>) {
        let name = match checked_name(&self.seat_name(name)) {
            Ok(n) => n,
            Err(e) => return self.bad_request(e.to_string()),
        };
        let valid = match config.validate() {
            Ok(c) => c,
            Err(e) => return self.error(ErrorCode::InvalidConfig, e.to_string()),
        };
        if config.rated && !self.may_sit_rated("a rated room") {
            return;
        }
        if config.rated
            && let Some(specs) = &bots
            && !specs
                .iter()
                .all(|spec| self.built_in_bot("a rated room", spec))
        {
            return;
        }
        let s = &self.ctx.settings;
        if let Some(ms) = config.move_time_ms
            && !(s.min_move_time_ms..=s.max_move_time_ms).contains(&ms)
        {
            let message = format!(
                "move_time_ms must be {}–{}, got {ms}",
                s.min_move_time_ms, s.max_move_time_ms
            );
            return self.error(ErrorCode::InvalidConfig, message);
        }
        if let Some(cluster) = &self.ctx.cluster
            && !cluster.serving()
        {
            let message = "this server cannot reach the cluster now; nothing was done: try again or use another server";
            return self.error(ErrorCode::Unavailable, message.to_string());
        }
        if bots.is_some() && self.ctx.lobby.bot_games() >= s.max_bot_games {
            let message = format!(
                "the server plays its maximum of {} games between bots; try again later",
                s.max_bot_games
            );
            return self.error(ErrorCode::ServerFull, message);
        }
        if !self.vacate().await {
            return;
        }
        let canonical = config.canonical(&valid);
        let ctx = self.ctx.room_context();
        let peer = self.peer.clone();
        let created = match bots {
            Some(specs) => room::create_exhibition(ctx, valid, canonical, peer, &specs),
            None => room::create(ctx, valid, canonical, peer, name),
        };
        match created {
            Ok((room, tx)) => self.member = Some(Member { room, tx }),
            Err(r) => self.refused(r),
        }
    }

    async fn join(&mut self, room: String, name: String, seat: Option<u8>) {
        let name = match checked_name(&self.seat_name(name)) {
            Ok(n) => n,
            Err(e) => return self.bad_request(e.to_string()),
        };
        let Some(tx) = self.find_room(&room).await else {
            return;
        };
        if self.ctx.lobby.is_rated(&room) && !self.may_sit_rated(&format!("room {room}")) {
            return;
        }
        if !self.vacate().await {
            return;
        }
        let peer = self.peer.clone();
        let (reply, rx) = oneshot::channel();
        if let Ok(Some(_seat)) = self
            .ask(
                &room,
                &tx,
                RoomEvent::Join {
                    peer,
                    name,
                    seat,
                    reply,
                },
                rx,
            )
            .await
        {
            self.member = Some(Member { room, tx });
        }
    }

    async fn spectate(&mut self, room: String) {
        let Some(tx) = self.find_room(&room).await else {
            return;
        };
        if !self.vacate().await {
            return;
        }
        let peer = self.peer.clone();
        let (reply, rx) = oneshot::channel();
        if let Ok(Some(())) = self
            .ask(&room, &tx, RoomEvent::Spectate { peer, reply }, rx)
            .await
        {
            self.member = Some(Member { room, tx });
        }
    }

    async fn resume(&mut self, token: String) {
        let mut found = if plausible_id(&token) {
            self.ctx.lobby.room_for_token(&token)
        } else {
            None
        };
        if found.is_none()
            && plausible_id(&token)
            && let Some(cluster) = &self.ctx.cluster
        {
            match cluster.room_of_token(&token).await {
                Ok(Some(room)) => match self.remote_room(&room).await {
                    Ok(Some(tx)) => found = Some((room, tx)),
                    Ok(None) => {}
                    Err(Unreachable) => return,
                },
                Ok(None) => {}
                // Not "no such seat": the seat may well be there, once the cluster answers.
                Err(e) => {
                    tracing::warn!(error = %e, "cannot look a seat token up in the cluster");
                    return self.unreachable();
                }
            }
        }
        let Some((room, tx)) = found else {
            return self.error(ErrorCode::BadToken, "the token matches no seat".to_string());
        };
        let same_room = self.member.as_ref().is_some_and(|m| m.room == room);
        if !same_room && !self.vacate().await {
            return;
        }
        let peer = self.peer.clone();
        let (reply, rx) = oneshot::channel();
        let ev = RoomEvent::Resume { peer, token, reply };
        if let Ok(Some(_seat)) = self.ask(&room, &tx, ev, rx).await {
            self.member = Some(Member { room, tx });
        }
    }

    async fn play(&mut self, row: i64, col: i64) {
        let not_seated = |message: String| ServerMessage::MoveRejected {
            reason: RejectReason::NotSeated,
            message,
        };
        let Some(m) = &self.member else {
            self.ctx.metrics.moves_rejected.inc();
            return self.reply(&not_seated("you are not in a room".to_string()));
        };
        let peer = self.peer.clone();
        if m.tx.send(RoomEvent::Move { peer, row, col }).await.is_err() {
            let message = format!("room {} has closed", m.room);
            self.member = None;
            self.ctx.metrics.moves_rejected.inc();
            self.reply(&not_seated(message));
        }
    }

    async fn leave(&mut self) {
        let Some(m) = self.member.take() else {
            return self.error(ErrorCode::Forbidden, "you are not in a room".to_string());
        };
        let (reply, rx) = oneshot::channel();
        let ev = RoomEvent::Leave {
            conn: self.peer.id,
            keep_active_seat: false,
            reply,
        };
        if m.tx.send(ev).await.is_ok() {
            let _ = rx.await;
        }
        self.reply(&ServerMessage::Left { room: m.room });
    }

    async fn list_games(&mut self, limit: Option<u32>) {
        let s = &self.ctx.settings;
        let limit = limit
            .unwrap_or(s.list_games_default)
            .clamp(1, s.list_games_max.max(1));
        match self.ctx.store.list(limit as usize).await {
            Ok(games) => self.reply(&ServerMessage::Games { games }),
            Err(e) => {
                tracing::error!(error = %e, "listing games failed");
                self.error(ErrorCode::Internal, "the game store failed".to_string());
            }
        }
    }

    async fn get_game(&mut self, game: String) {
        if let Some(record) = self.stored_game(&game).await {
            self.reply(&ServerMessage::Game { record });
        }
    }

    /// A stored game's record, or `None` with `no_such_game` or `internal` sent.
    async fn stored_game(&self, game: &str) -> Option<Record> {
        let found = if plausible_id(game) {
            self.ctx.store.get(game.to_string()).await
        } else {
            Ok(None)
        };
        match found {
            Ok(Some(record)) => Some(record),
            Ok(None) => {
                let message = format!("no stored game has id {game:?}");
                self.error(ErrorCode::NoSuchGame, message);
                None
            }
            Err(e) => {
                tracing::error!(error = %e, "reading a game failed");
                self.error(ErrorCode::Internal, "the game store failed".to_string());
                None
            }
        }
    }

    /// Starts an analysis of a room's position or a stored game's; the answer comes later,
    /// from the analyst (see [`crate::game::analysis`]).
    async fn analyze(&mut self, asked: Asked, index: Option<i64>) {
        let Ok(permit) = self.analyses.clone().try_acquire_owned() else {
            let n = self.ctx.settings.analyses_per_connection.max(1);
            let message = format!(
                "this connection already has {n} analyses under way; wait for an answer first"
            );
            return self.error(ErrorCode::AnalysisUnavailable, message);
        };
        let subject = match asked {
            Asked::Room(room) => self.room_subject(room, index).await,
            Asked::Game(game) => self.game_subject(game, index).await,
            Asked::Position(config, moves) => self.given_subject(&config, &moves, index),
            Asked::Unclear => {
                let message = "analyze names a room, a stored game or a position: give exactly one of \"room\", \"game\" and \"config\"";
                return self.bad_request(message.to_string());
            }
        };
        if let Some(subject) = subject {
            self.ctx.analyst.answer(self.peer.clone(), subject, permit);
        }
    }

    /// A room's position to analyse, or `None` with the refusal sent.
    async fn room_subject(&self, room: String, index: Option<i64>) -> Option<Subject> {
        let tx = self.find_room(&room).await?;
        let (reply, rx) = oneshot::channel();
        let ev = RoomEvent::Analyze { index, reply };
        self.ask(&room, &tx, ev, rx).await.ok().flatten()
    }

    /// A position given outright to analyse, or `None` with the refusal sent.
    fn given_subject(
        &self,
        config: &ConfigJson,
        moves: &[[i64; 2]],
        index: Option<i64>,
    ) -> Option<Subject> {
        let config = match config.validate() {
            Ok(c) => c,
            Err(e) => {
                self.error(ErrorCode::InvalidConfig, e.to_string());
                return None;
            }
        };
        match Subject::given(config, moves, index) {
            Ok(s) => Some(s),
            Err(r) => {
                self.refused(r);
                None
            }
        }
    }

    /// A stored game's position to analyse, or `None` with the refusal sent.
    async fn game_subject(&self, game: String, index: Option<i64>) -> Option<Subject> {
        let record = self.stored_game(&game).await?;
        let replayed = match record.replay() {
            Ok(g) => g,
            Err(e) => {
                tracing::error!(game = %game, error = %e, "a stored game does not replay");
                let message = format!("stored game {game} does not replay");
                self.error(ErrorCode::Internal, message);
                return None;
            }
        };
        match Subject::of(About::Game(game), &replayed, index) {
            Ok(s) => Some(s),
            Err(r) => {
                self.refused(r);
                None
            }
        }
    }

    // ---- helpers ----------------------------------------------------------------------------

    /// Sends an event about the current room; answers `forbidden` when not in a room.
    async fn tell_room(&mut self, ev: RoomEvent) {
        let Some(m) = &self.member else {
            return self.error(
                ErrorCode::Forbidden,
                "you are not in a room; create, join or spectate one first".to_string(),
            );
        };
        if m.tx.send(ev).await.is_err() {
            let room = m.room.clone();
            self.member = None;
            self.error(ErrorCode::NoSuchRoom, format!("room {room} has closed"));
        }
    }

    /// The channel of a room — of this node, or in a cluster a relay to the node playing it —
    /// or `no_such_room` (or, if the cluster cannot be asked, `unavailable`) sent.
    async fn find_room(&self, room: &str) -> Option<mpsc::Sender<RoomEvent>> {
        if plausible_id(room) {
            if let Some(tx) = self.ctx.lobby.room(room) {
                return Some(tx);
            }
            match self.remote_room(room).await {
                Ok(Some(tx)) => return Some(tx),
                Ok(None) => {}
                Err(Unreachable) => return None,
            }
        }
        self.error(ErrorCode::NoSuchRoom, format!("no room has id {room:?}"));
        None
    }

    /// In a cluster, a relay to the room on the node that plays it (`None`: no node plays it);
    /// if Redis cannot be asked, `unavailable` is sent.
    async fn remote_room(
        &self,
        room: &str,
    ) -> Result<Option<mpsc::Sender<RoomEvent>>, Unreachable> {
        let Some(cluster) = self.ctx.cluster.as_ref() else {
            return Ok(None);
        };
        match cluster
            .room_channel(room, self.ctx.settings.room_queue)
            .await
        {
            Ok(found) => Ok(found.map(|(tx, _)| tx)),
            Err(e) => {
                tracing::warn!(error = %e, "cannot look a room's node up in the cluster");
                self.unreachable();
                Err(Unreachable)
            }
        }
    }

    /// Tells the client the cluster cannot be asked now: nothing was done.
    fn unreachable(&self) {
        let message = "the cluster cannot be reached now; nothing was done: send it again";
        self.error(ErrorCode::Unavailable, message.to_string());
    }

    /// Answers `list_rooms`: this node's rooms, or in a cluster every node's (this node's alone
    /// if Redis cannot be read).
    async fn list_rooms(&self) {
        if let Some(cluster) = &self.ctx.cluster
            && let Some(text) = cluster.rooms_message().await
        {
            return self.peer.send(&text);
        }
        self.peer.send(&self.ctx.lobby.rooms_message());
    }

    /// Sends a request to a room and waits for its answer; a refusal is sent to the client.
    /// `Ok(None)` means refused, `Err(())` the room is gone (also answered).
    async fn ask<T>(
        &self,
        room: &str,
        tx: &mpsc::Sender<RoomEvent>,
        ev: RoomEvent,
        rx: oneshot::Receiver<Result<T, Refusal>>,
    ) -> Result<Option<T>, ()> {
        let gone = || {
            self.error(ErrorCode::NoSuchRoom, format!("room {room} has closed"));
        };
        if tx.send(ev).await.is_err() {
            gone();
            return Err(());
        }
        match rx.await {
            Ok(Ok(v)) => Ok(Some(v)),
            Ok(Err(r)) => {
                self.refused(r);
                Ok(None)
            }
            Err(_) => {
                gone();
                Err(())
            }
        }
    }

    /// Leaves the current room before entering another: spectators and seats of finished
    /// games leave; a seat in a game not over is kept and `forbidden` is answered.
    async fn vacate(&mut self) -> bool {
        if !self.stop_seeking().await {
            self.await_pairing().await;
        }
        let Some(m) = &self.member else {
            return true;
        };
        let (reply, rx) = oneshot::channel();
        let ev = RoomEvent::Leave {
            conn: self.peer.id,
            keep_active_seat: true,
            reply,
        };
        if m.tx.send(ev).await.is_err() {
            self.member = None;
            return true;
        }
        match rx.await {
            Ok(LeaveOutcome::Stayed(seat)) => {
                let message = seated_message(seat, &m.room);
                self.error(ErrorCode::Forbidden, message);
                false
            }
            Ok(LeaveOutcome::Left) | Err(_) => {
                self.member = None;
                true
            }
        }
    }

    fn reply(&self, msg: &ServerMessage) {
        self.peer.send_msg(msg);
    }

    fn error(&self, code: ErrorCode, message: String) {
        self.reply(&ServerMessage::Error { code, message });
    }

    fn refused(&self, r: Refusal) {
        if r.code == ErrorCode::BadRequest {
            self.ctx.metrics.bad_requests.inc();
        }
        self.error(r.code, r.message);
    }

    fn bad_request(&self, message: String) {
        self.ctx.metrics.bad_requests.inc();
        self.error(ErrorCode::BadRequest, message);
    }
}

fn seated_message(seat: Seat, room: &str) -> String {
    format!("you hold seat {seat} in room {room}, whose game is not over; send leave first")
}
