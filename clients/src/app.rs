//! [`App`]: the interactive client's state machine. Keys and server messages go in, messages to
//! send and screens to draw come out; no terminal or socket is touched here, so the whole
//! client logic is tested without either.

use crate::cli::{CreateArgs, parse_bot};
use crate::explain;
use crate::hint::{self, HintError, HintJob, Hints};
use crate::input::{self, Action, Mode};
use crate::render_game::{self, GameView, Link, Notice};
use crate::render_lobby::{self, LobbyView};
use crate::room_state::{Applied, RoomState};
use crate::style::{Line, Style};
use crossterm::event::KeyEvent;
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{ClientMessage, RoomStatus, RoomSummary, ServerMessage};
use std::time::{Duration, Instant};

/// How often the lobby refreshes its room list.
pub const LOBBY_REFRESH: Duration = Duration::from_secs(3);

/// Where the client starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The room list.
    Lobby,
    /// Create a room with these options.
    Create(CreateArgs),
    /// Join a room.
    Join(String),
    /// Watch a room.
    Watch(String),
    /// Take a seat back with its token.
    Resume(String),
    /// Step through a stored game.
    Replay(Record),
}

/// What is being typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// Coordinates `ROW,COL` to eat at.
    Coords,
    /// A bot spec to add.
    Bot,
    /// The create-room form.
    Create,
    /// A room id to join.
    JoinId,
}

impl PromptKind {
    fn label(self) -> &'static str {
        match self {
            PromptKind::Coords => "eat at ROW,COL: ",
            PromptKind::Bot => "bot spec (Enter: server default): ",
            PromptKind::Create => "create: ",
            PromptKind::JoinId => "room id: ",
        }
    }
}

/// A room the client is in, or about to be.
#[derive(Clone, Debug)]
pub struct RoomScreen {
    /// The room as last seen; `None` until the first snapshot.
    pub state: Option<RoomState>,
    /// The seat held; `None` when watching.
    pub seat: Option<u8>,
    /// The token to resume the seat.
    pub token: Option<String>,
    /// The room id, once known (for watching again after a reconnect).
    pub room: Option<String>,
    /// Whether this client created the room.
    pub host: bool,
    /// The anchor under the cursor.
    pub cursor: (i64, i64),
    /// Hints for the current position, when switched on.
    pub hints: Option<Hints>,
    /// Whether hints are switched on (they are recomputed after every move).
    pub hints_on: bool,
    /// The key of the analysis being waited for.
    pub hints_waiting: Option<u64>,
    /// When the seat to move began its turn (for the clock).
    pub turn_since: Option<Instant>,
}

impl RoomScreen {
    fn new(room: Option<String>) -> RoomScreen {
        RoomScreen {
            state: None,
            seat: None,
            token: None,
            room,
            host: false,
            cursor: (0, 0),
            hints: None,
            hints_on: false,
            hints_waiting: None,
            turn_since: None,
        }
    }
}

/// The screen shown.
#[derive(Clone, Debug)]
pub enum Screen {
    /// The room list.
    Lobby,
    /// A room.
    Room(Box<RoomScreen>),
    /// A stored game, at a step.
    Replay {
        /// The game.
        record: Box<Record>,
        /// The number of moves shown as played.
        step: usize,
    },
}

/// The interactive client.
#[derive(Debug)]
pub struct App {
    server: String,
    name: String,
    /// The screen shown.
    pub screen: Screen,
    rooms: Vec<RoomSummary>,
    selected: usize,
    prompt: Option<(PromptKind, String)>,
    notice: Option<Notice>,
    link: Link,
    quit: bool,
    outbox: Vec<ClientMessage>,
    pending_bots: Vec<String>,
    last_refresh: Option<Instant>,
    hint_limit: Option<Duration>,
    hint_job: Option<HintJob>,
    hint_seq: u64,
}

impl App {
    /// A client for `server`, playing as `name`, starting at `start`. The messages to send
    /// first are in the outbox.
    pub fn new(server: &str, name: &str, start: Start) -> App {
        let mut app = App {
            server: server.to_owned(),
            name: name.to_owned(),
            screen: Screen::Lobby,
            rooms: Vec::new(),
            selected: 0,
            prompt: None,
            notice: None,
            link: Link::Online,
            quit: false,
            outbox: Vec::new(),
            pending_bots: Vec::new(),
            last_refresh: None,
            hint_limit: Some(hint::HINT_TIME),
            hint_job: None,
            hint_seq: 0,
        };
        match start {
            Start::Lobby => app.send(ClientMessage::ListRooms),
            Start::Create(args) => app.create(args),
            Start::Join(room) => app.join(room),
            Start::Watch(room) => app.watch(room),
            Start::Resume(token) => {
                let mut screen = RoomScreen::new(None);
                screen.token = Some(token.clone());
                app.screen = Screen::Room(Box::new(screen));
                app.send(ClientMessage::Resume { token });
            }
            Start::Replay(record) => {
                app.screen = Screen::Replay {
                    step: record.moves.len(),
                    record: Box::new(record),
                }
            }
        }
        app
    }

    /// Sets how long a hint analysis may take (`None`: until solved); the default is
    /// [`hint::HINT_TIME`].
    pub fn with_hint_limit(mut self, limit: Option<Duration>) -> App {
        self.hint_limit = limit;
        self
    }

    fn send(&mut self, msg: ClientMessage) {
        self.outbox.push(msg);
    }

    /// Shows a message to the player.
    pub fn say(&mut self, text: impl Into<String>, style: Style) {
        self.notice = Some(Notice {
            text: text.into(),
            style,
        });
    }

    fn create(&mut self, args: CreateArgs) {
        match args.config_json() {
            Ok(config) => {
                self.pending_bots = args.bots;
                let mut screen = RoomScreen::new(None);
                screen.host = true;
                self.screen = Screen::Room(Box::new(screen));
                self.send(ClientMessage::CreateRoom {
                    name: self.name.clone(),
                    config,
                });
            }
            Err(e) => self.say(e.to_string(), Style::Bad),
        }
    }

    fn join(&mut self, room: String) {
        self.screen = Screen::Room(Box::new(RoomScreen::new(Some(room.clone()))));
        self.send(ClientMessage::JoinRoom {
            room,
            name: self.name.clone(),
        });
    }

    fn watch(&mut self, room: String) {
        self.screen = Screen::Room(Box::new(RoomScreen::new(Some(room.clone()))));
        self.send(ClientMessage::Spectate { room });
    }

    fn back_to_lobby(&mut self) {
        self.screen = Screen::Lobby;
        self.prompt = None;
        self.send(ClientMessage::ListRooms);
    }

    /// Takes the messages to send.
    pub fn take_outbox(&mut self) -> Vec<ClientMessage> {
        std::mem::take(&mut self.outbox)
    }

    /// Whether the user asked to quit.
    pub fn quit(&self) -> bool {
        self.quit
    }

    /// The message shown to the player, if any.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// The room shown, if any.
    pub fn room(&self) -> Option<&RoomScreen> {
        match &self.screen {
            Screen::Room(r) => Some(r),
            _ => None,
        }
    }

    /// The rooms as last listed.
    pub fn rooms(&self) -> &[RoomSummary] {
        &self.rooms
    }

    /// Whether the client talks to a server at all (a replay does not).
    pub fn needs_server(&self) -> bool {
        !matches!(self.screen, Screen::Replay { .. })
    }

    /// The link state changed.
    pub fn on_link(&mut self, link: Link) {
        self.link = link;
    }

    /// What to send on a new connection after a drop to get back where the client was: the
    /// seat's `resume`, the watched room's `spectate`, or the room list.
    pub fn rejoin(&self) -> ClientMessage {
        match &self.screen {
            Screen::Room(r) => match (&r.token, &r.room) {
                (Some(token), _) => ClientMessage::Resume {
                    token: token.clone(),
                },
                (None, Some(room)) if r.seat.is_none() => {
                    ClientMessage::Spectate { room: room.clone() }
                }
                _ => ClientMessage::ListRooms,
            },
            _ => ClientMessage::ListRooms,
        }
    }

    /// How to take the seat back, when quitting leaves a game in progress (or a waiting room)
    /// behind.
    pub fn resume_hint(&self) -> Option<String> {
        let r = self.room()?;
        let token = r.token.as_deref()?;
        let state = r.state.as_ref()?;
        (state.status != RoomStatus::Finished).then(|| {
            format!(
                "You left seat {} of room {} open; take it back with: jchomp resume {token}",
                r.seat.unwrap_or_default(),
                state.room
            )
        })
    }

    /// The seat token held, if any.
    pub fn token(&self) -> Option<&str> {
        self.room().and_then(|r| r.token.as_deref())
    }

    /// Time passed: refreshes the lobby now and then.
    pub fn on_tick(&mut self, now: Instant) {
        if matches!(self.screen, Screen::Lobby)
            && self.link == Link::Online
            && self
                .last_refresh
                .is_none_or(|t| now.duration_since(t) >= LOBBY_REFRESH)
        {
            self.last_refresh = Some(now);
            self.send(ClientMessage::ListRooms);
        }
    }

    /// A message from the server arrived.
    pub fn on_message(&mut self, msg: ServerMessage, now: Instant) {
        match msg {
            ServerMessage::Rooms { rooms } => {
                self.rooms = rooms;
                self.selected = self.selected.min(self.rooms.len().saturating_sub(1));
            }
            ServerMessage::Joined { room, seat, token } => {
                let mut screen = match std::mem::replace(&mut self.screen, Screen::Lobby) {
                    Screen::Room(r) => r,
                    _ => Box::new(RoomScreen::new(None)),
                };
                let back = screen.room.as_deref() == Some(room.as_str()) && screen.state.is_some();
                if !back {
                    screen.state = None;
                }
                screen.room = Some(room.clone());
                screen.seat = Some(seat);
                let text = format!(
                    "{} seat {seat} in room {room}. To take it back from elsewhere: \
                     jchomp resume {token}",
                    if back { "Back in your" } else { "You hold" }
                );
                screen.token = Some(token);
                screen.host |= seat == 0;
                self.screen = Screen::Room(screen);
                self.say(text, Style::Good);
                for bot in std::mem::take(&mut self.pending_bots) {
                    self.send(ClientMessage::AddBot { bot: Some(bot) });
                }
            }
            ServerMessage::Room(snapshot) => {
                let Screen::Room(screen) = &mut self.screen else {
                    return;
                };
                match RoomState::from_snapshot(snapshot) {
                    Ok(state) => {
                        let changed = screen.state.as_ref().is_none_or(|old| {
                            old.to_move != state.to_move
                                || old.game.moves().len() != state.game.moves().len()
                                || old.status != state.status
                        });
                        screen.room = Some(state.room.clone());
                        screen.state = Some(state);
                        if changed {
                            screen.turn_since = Some(now);
                            self.refresh_hints();
                        }
                    }
                    Err(e) => {
                        let text = e.to_string();
                        self.say(text, Style::Bad);
                    }
                }
            }
            ServerMessage::Moved(m) => {
                let Screen::Room(screen) = &mut self.screen else {
                    return;
                };
                let Some(state) = &mut screen.state else {
                    self.send(ClientMessage::Sync);
                    return;
                };
                match state.apply_moved(&m) {
                    Applied::Ok => {
                        screen.turn_since = Some(now);
                        if m.status == RoomStatus::Finished
                            && let Some(r) = m.result
                        {
                            let text = explain::result(r, &state.seats, screen.seat);
                            self.say(text, Style::Accent);
                        }
                        self.refresh_hints();
                    }
                    Applied::Stale => {}
                    Applied::NeedSync => self.send(ClientMessage::Sync),
                }
            }
            ServerMessage::MoveRejected { reason, .. } => {
                self.say(explain::rejection(reason), Style::Bad);
            }
            ServerMessage::Left { .. } => {
                self.back_to_lobby();
                self.say("You left the room.", Style::Plain);
            }
            ServerMessage::Error { code, message } => {
                use jchomp_protocol::wire::ErrorCode;
                let mut text = explain::error(code, &message);
                let lost_room = match &self.screen {
                    Screen::Room(r) => {
                        r.state.is_none()
                            || matches!(code, ErrorCode::BadToken | ErrorCode::NoSuchRoom)
                    }
                    _ => false,
                };
                if lost_room {
                    self.back_to_lobby();
                }
                if code == ErrorCode::RoomFull {
                    text.push_str(" Select it and press w to watch instead.");
                }
                self.say(text, Style::Bad);
            }
            ServerMessage::Games { .. } | ServerMessage::Game { .. } => {}
        }
    }

    fn mode(&self) -> Mode {
        if self.prompt.is_some() {
            return Mode::Text;
        }
        match self.screen {
            Screen::Lobby => Mode::Lobby,
            Screen::Room(_) => Mode::Game,
            Screen::Replay { .. } => Mode::Replay,
        }
    }

    /// A key was pressed.
    pub fn on_key(&mut self, key: KeyEvent) {
        let action = input::action(self.mode(), key);
        if action == Action::Quit {
            self.quit = true;
            return;
        }
        if let Some((kind, mut text)) = self.prompt.take() {
            match action {
                Action::Char(c) => {
                    text.push(c);
                    self.prompt = Some((kind, text));
                }
                Action::Backspace => {
                    text.pop();
                    self.prompt = Some((kind, text));
                }
                Action::Confirm => self.submit(kind, &text),
                Action::Cancel => {}
                _ => self.prompt = Some((kind, text)),
            }
            return;
        }
        match &self.screen {
            Screen::Lobby => self.lobby_key(action),
            Screen::Room(_) => self.room_key(action),
            Screen::Replay { .. } => self.replay_key(action),
        }
    }

    fn submit(&mut self, kind: PromptKind, text: &str) {
        match kind {
            PromptKind::Coords => match input::parse_coords(text) {
                Ok(cell) => {
                    if let Screen::Room(r) = &mut self.screen {
                        r.cursor = cell;
                    }
                    self.eat();
                }
                Err(e) => self.say(e, Style::Bad),
            },
            PromptKind::Bot => {
                let text = text.trim();
                if text.is_empty() {
                    self.send(ClientMessage::AddBot { bot: None });
                } else {
                    match parse_bot(text) {
                        Ok(spec) => self.send(ClientMessage::AddBot { bot: Some(spec) }),
                        Err(e) => self.say(e, Style::Bad),
                    }
                }
            }
            PromptKind::Create => match CreateArgs::parse_form(text) {
                Ok(args) => self.create(args),
                Err(e) => {
                    self.say(e, Style::Bad);
                    self.prompt = Some((kind, text.to_owned()));
                }
            },
            PromptKind::JoinId => {
                let room = text.trim();
                if !room.is_empty() {
                    self.join(room.to_owned());
                }
            }
        }
    }

    fn lobby_key(&mut self, action: Action) {
        let chosen = self.rooms.get(self.selected).map(|r| r.room.clone());
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => {
                self.selected = (self.selected + 1).min(self.rooms.len().saturating_sub(1))
            }
            Action::Confirm => match chosen {
                Some(room) => self.join(room),
                None => self.say(
                    "There is no room to join; press c to create one.",
                    Style::Bad,
                ),
            },
            Action::Watch => {
                if let Some(room) = chosen {
                    self.watch(room);
                }
            }
            Action::Create => {
                self.prompt = Some((PromptKind::Create, CreateArgs::form_default().to_owned()));
                self.say(
                    "Flags as for `jchomp create`: --size RxC --eat RxC --poison R,C (repeat) \
                     --players N --move-time 30s --bot SPEC (repeat)",
                    Style::Dim,
                );
            }
            Action::JoinById => self.prompt = Some((PromptKind::JoinId, String::new())),
            Action::Refresh => self.send(ClientMessage::ListRooms),
            _ => {}
        }
    }

    fn room_key(&mut self, action: Action) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        let (rows, cols) = r
            .state
            .as_ref()
            .map(|s| (s.config.rows() as i64, s.config.cols() as i64))
            .unwrap_or((1, 1));
        let (row, col) = r.cursor;
        match action {
            Action::Up => r.cursor = ((row - 1).max(0), col),
            Action::Down => r.cursor = ((row + 1).min(rows - 1), col),
            Action::Left => r.cursor = (row, (col - 1).max(0)),
            Action::Right => r.cursor = (row, (col + 1).min(cols - 1)),
            Action::Confirm => self.eat(),
            Action::TypeCoords(c) if r.seat.is_some() => {
                self.prompt = Some((PromptKind::Coords, c.to_string()));
            }
            Action::Hint => self.toggle_hints(),
            Action::AddBot => {
                if r.seat.is_some()
                    && r.state
                        .as_ref()
                        .is_some_and(|s| s.status == RoomStatus::Waiting)
                {
                    self.prompt = Some((PromptKind::Bot, String::new()));
                } else {
                    self.say(
                        "Bots can be added by the host while the room waits for players.",
                        Style::Bad,
                    );
                }
            }
            Action::Leave | Action::Cancel => {
                let finished = r
                    .state
                    .as_ref()
                    .is_none_or(|s| s.status != RoomStatus::Playing);
                if action == Action::Leave || finished {
                    self.send(ClientMessage::Leave);
                    self.back_to_lobby();
                }
            }
            _ => {}
        }
    }

    fn toggle_hints(&mut self) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        r.hints_on = !r.hints_on;
        self.refresh_hints();
    }

    /// Asks for the hints of the current position when they are switched on (see
    /// [`App::take_hint_job`]); older answers are then ignored.
    fn refresh_hints(&mut self) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        r.hints = None;
        r.hints_waiting = None;
        self.hint_job = None;
        if !r.hints_on {
            return;
        }
        let Some(state) = &r.state else {
            return;
        };
        self.hint_seq += 1;
        r.hints_waiting = Some(self.hint_seq);
        self.hint_job = Some(HintJob {
            key: self.hint_seq,
            config: state.config,
            position: state.position(),
            limit: self.hint_limit,
        });
    }

    /// Takes the analysis to run for the hints, if one is wanted. The runner computes it off
    /// the screen's loop and hands the answer to [`App::on_hints`].
    pub fn take_hint_job(&mut self) -> Option<HintJob> {
        self.hint_job.take()
    }

    /// The answer to a [`HintJob`]: shown if it is for the current position, ignored if not.
    pub fn on_hints(&mut self, key: u64, result: Result<Hints, HintError>) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        if r.hints_waiting != Some(key) {
            return;
        }
        r.hints_waiting = None;
        match result {
            Ok(h) => r.hints = Some(h),
            Err(e) => {
                r.hints_on = false;
                let text = format!("No hints: {e}.");
                self.say(text, Style::Bad);
            }
        }
    }

    /// Eats at the cursor, if the local rules allow it.
    fn eat(&mut self) {
        let Screen::Room(r) = &self.screen else {
            return;
        };
        let Some(state) = &r.state else {
            return;
        };
        let (row, col) = r.cursor;
        let problem = match (r.seat, state.status) {
            (None, _) => Some("You are watching; only seated players can move.".to_owned()),
            (_, RoomStatus::Waiting) => Some("The game has not started yet.".to_owned()),
            (_, RoomStatus::Finished) => Some("The game is over.".to_owned()),
            (Some(me), RoomStatus::Playing) if state.to_move != Some(me) => {
                Some("It is not your turn.".to_owned())
            }
            _ => state
                .position()
                .check(&state.config, row, col)
                .err()
                .map(|e| {
                    format!(
                        "Cannot eat at {row},{col}: {}.",
                        explain::local_rejection(e)
                    )
                }),
        };
        match problem {
            Some(text) => self.say(text, Style::Bad),
            None => {
                self.notice = None;
                self.send(ClientMessage::Move { row, col });
            }
        }
    }

    fn replay_key(&mut self, action: Action) {
        let Screen::Replay { record, step } = &mut self.screen else {
            return;
        };
        let n = record.moves.len();
        match action {
            Action::Left | Action::Up => *step = step.saturating_sub(1),
            Action::Right | Action::Down | Action::Confirm => *step = (*step + 1).min(n),
            Action::First => *step = 0,
            Action::Last => *step = n,
            Action::Cancel => self.quit = true,
            _ => {}
        }
    }

    /// The screen to draw, for a terminal of `width` × `height`, at time `now`.
    pub fn render(&self, width: usize, height: usize, now: Instant) -> Vec<Line> {
        let input = self.prompt.as_ref().map(|(k, t)| (k.label(), t.as_str()));
        match &self.screen {
            Screen::Lobby => render_lobby::render(
                &LobbyView {
                    server: &self.server,
                    name: &self.name,
                    rooms: &self.rooms,
                    selected: self.selected,
                    notice: self.notice.as_ref(),
                    input,
                },
                width,
                height,
            ),
            Screen::Room(r) => match &r.state {
                None => {
                    let mut out = vec![
                        Line::styled("JChomp", Style::Title),
                        Line::plain("Joining the room…"),
                    ];
                    if let Some(n) = &self.notice {
                        out.push(Line::styled(n.text.clone(), n.style));
                    }
                    out
                }
                Some(state) => {
                    let clock_ms = match (state.move_time_ms(), r.turn_since) {
                        (Some(total), Some(since)) if state.status == RoomStatus::Playing => {
                            let spent = now.duration_since(since).as_millis() as u64;
                            Some(total.saturating_sub(spent))
                        }
                        _ => None,
                    };
                    let view = GameView {
                        state,
                        me: r.seat,
                        cursor: r.seat.map(|_| r.cursor),
                        hints: r.hints.as_ref(),
                        clock_ms,
                        link: self.link,
                        notice: self.notice.as_ref(),
                        input,
                        replay: None,
                    };
                    render_game::render(&view, width)
                }
            },
            Screen::Replay { record, step } => match RoomState::from_record(record, *step) {
                Ok(state) => render_game::render(
                    &GameView {
                        state: &state,
                        me: None,
                        cursor: None,
                        hints: None,
                        clock_ms: None,
                        link: Link::Online,
                        notice: None,
                        input: None,
                        replay: Some((*step, record.moves.len())),
                    },
                    width,
                ),
                Err(e) => vec![Line::styled(
                    format!("This game record does not replay: {e}"),
                    Style::Bad,
                )],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::to_text;
    use crossterm::event::{KeyCode, KeyModifiers};
    use jchomp_bot::board_args::BoardArgs;
    use jchomp_protocol::json::ConfigJson;
    use jchomp_protocol::wire::{ErrorCode, Moved, RejectReason, SeatInfo, Snapshot};

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    fn seat(name: &str) -> Option<SeatInfo> {
        Some(SeatInfo {
            name: name.into(),
            bot: false,
            connected: true,
        })
    }

    fn snapshot(version: u64, to_move: u8) -> Snapshot {
        Snapshot {
            room: "r1".into(),
            config: ConfigJson {
                rows: 4,
                cols: 5,
                players: 2,
                eat: [1, 1],
                poison: vec![[0, 0]],
                move_time_ms: Some(30_000),
            },
            seats: vec![seat("me"), seat("you")],
            status: RoomStatus::Playing,
            to_move: Some(to_move),
            eaten: vec![],
            moves: vec![],
            result: None,
            version,
        }
    }

    /// Runs the pending hint analysis, as the runner does off the screen's loop.
    fn run_hints(app: &mut App) {
        while let Some(job) = app.take_hint_job() {
            let result = job.run();
            app.on_hints(job.key, result);
        }
    }

    fn seated(seat: u8) -> App {
        let mut app = App::new("ws://s/ws", "me", Start::Join("r1".into())).with_hint_limit(None);
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::JoinRoom {
                room: "r1".into(),
                name: "me".into()
            }]
        );
        let now = Instant::now();
        app.on_message(
            ServerMessage::Joined {
                room: "r1".into(),
                seat,
                token: "tok".into(),
            },
            now,
        );
        app.on_message(ServerMessage::Room(snapshot(3, 0)), now);
        app
    }

    #[test]
    fn create_sends_the_config_then_adds_the_bots_once_seated() {
        let args = CreateArgs {
            board: BoardArgs {
                size: (5, 6),
                eat: (1, 2),
                poison: vec![],
                players: 3,
            },
            move_time: None,
            bots: vec!["greedy".into(), "level:2".into()],
        };
        let mut app = App::new("s", "me", Start::Create(args));
        let out = app.take_outbox();
        assert!(
            matches!(&out[..], [ClientMessage::CreateRoom { name, config }]
            if name == "me" && config.rows == 5 && config.players == 3)
        );
        app.on_message(
            ServerMessage::Joined {
                room: "r9".into(),
                seat: 0,
                token: "t".into(),
            },
            Instant::now(),
        );
        assert_eq!(
            app.take_outbox(),
            vec![
                ClientMessage::AddBot {
                    bot: Some("greedy".into())
                },
                ClientMessage::AddBot {
                    bot: Some("level:2".into())
                }
            ]
        );
        assert!(app.room().unwrap().host);
    }

    #[test]
    fn cursor_keys_and_enter_send_a_move_on_my_turn() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Char('j')));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Move { row: 1, col: 1 }]
        );
    }

    #[test]
    fn refused_selections_stay_local_with_the_reason() {
        let mut app = seated(1);
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert_eq!(app.notice().unwrap().text, "It is not your turn.");

        let mut app = seated(0);
        let now = Instant::now();
        app.on_message(
            ServerMessage::Moved(Moved {
                room: "r1".into(),
                version: 4,
                seat: 0,
                row: 2,
                col: 2,
                to_move: Some(1),
                status: RoomStatus::Playing,
                result: None,
            }),
            now,
        );
        app.on_message(
            ServerMessage::Moved(Moved {
                room: "r1".into(),
                version: 5,
                seat: 1,
                row: 3,
                col: 3,
                to_move: Some(0),
                status: RoomStatus::Playing,
                result: None,
            }),
            now,
        );
        for c in "2,2".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert_eq!(
            app.notice().unwrap().text,
            "Cannot eat at 2,2: part of it is already eaten."
        );
        for c in "3,1".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Move { row: 3, col: 1 }]
        );
    }

    #[test]
    fn a_version_gap_asks_for_sync_and_rejections_read_as_words() {
        let mut app = seated(0);
        app.on_message(
            ServerMessage::Moved(Moved {
                room: "r1".into(),
                version: 9,
                seat: 0,
                row: 2,
                col: 2,
                to_move: Some(1),
                status: RoomStatus::Playing,
                result: None,
            }),
            Instant::now(),
        );
        assert_eq!(app.take_outbox(), vec![ClientMessage::Sync]);
        app.on_message(
            ServerMessage::MoveRejected {
                reason: RejectReason::NotYourTurn,
                message: "x".into(),
            },
            Instant::now(),
        );
        assert_eq!(app.notice().unwrap().text, "It is not your turn.");
    }

    #[test]
    fn a_failed_join_returns_to_the_lobby_in_plain_words() {
        let mut app = App::new("s", "me", Start::Join("nope".into()));
        app.take_outbox();
        app.on_message(
            ServerMessage::Error {
                code: ErrorCode::NoSuchRoom,
                message: "no room nope".into(),
            },
            Instant::now(),
        );
        assert!(matches!(app.screen, Screen::Lobby));
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("There is no room with that id"), "{text}");
        assert!(!text.contains('{'), "{text}");
    }

    #[test]
    fn lobby_selection_joins_watches_and_creates() {
        let mut app = App::new("s", "me", Start::Lobby);
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
        let summary = |id: &str| RoomSummary {
            room: id.into(),
            config: snapshot(0, 0).config,
            seats: vec![seat("a"), None],
            status: RoomStatus::Waiting,
        };
        app.on_message(
            ServerMessage::Rooms {
                rooms: vec![summary("r1"), summary("r2")],
            },
            Instant::now(),
        );
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Char('w')));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Spectate { room: "r2".into() }]
        );
        assert_eq!(app.rejoin(), ClientMessage::Spectate { room: "r2".into() });
        app.on_key(key(KeyCode::Char('L')));
        app.take_outbox();
        app.on_key(key(KeyCode::Char('c')));
        for _ in 0..CreateArgs::form_default().len() {
            app.on_key(key(KeyCode::Backspace));
        }
        for c in "--size 3x5".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert_eq!(app.notice().unwrap().text, "rows must be 4–15, got 3");
        for c in "x".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Esc));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::JoinRoom {
                room: "r2".into(),
                name: "me".into()
            }]
        );
    }

    #[test]
    fn a_dropped_seat_is_resumed_with_its_token() {
        let mut app = seated(1);
        assert_eq!(
            app.rejoin(),
            ClientMessage::Resume {
                token: "tok".into()
            }
        );
        app.on_link(Link::Reconnecting);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("reconnecting"), "{text}");
    }

    #[test]
    fn the_clock_counts_down_from_the_turn_start() {
        let mut app = seated(0);
        let t0 = Instant::now();
        app.on_message(ServerMessage::Room(snapshot(3, 1)), t0);
        let text = to_text(&app.render(80, 24, t0 + Duration::from_millis(2500)));
        assert!(text.contains("you to move · 27.5s"), "{text}");
    }

    #[test]
    fn bots_are_added_with_a_checked_spec() {
        let mut app = seated(0);
        if let Screen::Room(r) = &mut app.screen {
            r.state.as_mut().unwrap().status = RoomStatus::Waiting;
        }
        app.on_key(key(KeyCode::Char('b')));
        for c in "wizard".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert!(app.notice().unwrap().text.contains("valid forms"));
        app.on_key(key(KeyCode::Char('b')));
        for c in "level:3".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::AddBot {
                bot: Some("level:3".into())
            }]
        );
    }

    #[test]
    fn the_hint_key_overlays_the_engines_verdicts_and_follows_the_game() {
        fn key_to(app: &mut App, code: KeyCode) {
            app.on_key(key(code));
        }
        let mut app = seated(0);
        let mut snap = snapshot(3, 0);
        snap.config.cols = 4;
        app.on_message(ServerMessage::Room(snap), Instant::now());
        app.on_key(key(KeyCode::Char('?')));
        assert!(app.room().unwrap().hints.is_none());
        run_hints(&mut app);
        let hints = app.room().unwrap().hints.clone().unwrap();
        assert_eq!(hints.selections.len(), 16);
        let text = to_text(&app.render(80, 24, Instant::now()));
        // The cursor sits on the poison: its verdict is in the panel, the others on the board.
        assert!(text.contains(" 0 [P]W"), "{text}");
        assert!(text.contains("hint: loses in 1"), "{text}");
        key_to(&mut app, KeyCode::Down);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains(" 0 L1 W"), "{text}");
        app.on_message(
            ServerMessage::Moved(Moved {
                room: "r1".into(),
                version: 4,
                seat: 0,
                row: 3,
                col: 3,
                to_move: Some(1),
                status: RoomStatus::Playing,
                result: None,
            }),
            Instant::now(),
        );
        // An answer for the old position is ignored; the new one is asked for.
        app.on_hints(1, Ok(hints));
        assert!(app.room().unwrap().hints.is_none());
        run_hints(&mut app);
        assert_eq!(
            app.room().unwrap().hints.as_ref().unwrap().selections.len(),
            15
        );
        app.on_key(key(KeyCode::Char('?')));
        assert!(app.room().unwrap().hints.is_none());
    }

    #[test]
    fn hints_explain_why_they_are_missing() {
        let mut app = seated(0);
        let mut snap = snapshot(7, 0);
        snap.config.players = 3;
        snap.seats.push(seat("third"));
        app.on_message(ServerMessage::Room(snap), Instant::now());
        app.on_key(key(KeyCode::Char('?')));
        run_hints(&mut app);
        assert!(app.room().unwrap().hints.is_none());
        assert!(!app.room().unwrap().hints_on);
        assert_eq!(
            app.notice().unwrap().text,
            "No hints: hints are available in two-player games only."
        );
    }

    #[test]
    fn a_replay_steps_back_and_forth() {
        use jchomp_protocol::json::{MoveJson, ResultJson};
        let record = Record {
            id: Some("g7".into()),
            config: snapshot(0, 0).config,
            seats: vec!["ann".into(), "bob".into()],
            moves: vec![
                MoveJson {
                    seat: 0,
                    row: 3,
                    col: 4,
                },
                MoveJson {
                    seat: 1,
                    row: 0,
                    col: 0,
                },
            ],
            result: Some(ResultJson::Poisoned { loser: 1 }),
            started_ms: None,
            finished_ms: None,
        };
        let mut app = App::new("s", "me", Start::Replay(record));
        assert!(!app.needs_server());
        assert!(app.take_outbox().is_empty());
        let now = Instant::now();
        let text = to_text(&app.render(80, 24, now));
        assert!(text.contains("replay 2/2"), "{text}");
        assert!(text.contains("bob ate poison and lost."), "{text}");
        app.on_key(key(KeyCode::Left));
        let text = to_text(&app.render(80, 24, now));
        assert!(text.contains("replay 1/2"), "{text}");
        assert!(text.contains(" 3  #  #  #  #  ~"), "{text}");
        assert!(text.contains("bob to move"), "{text}");
        app.on_key(key(KeyCode::Home));
        assert!(to_text(&app.render(80, 24, now)).contains("replay 0/2"));
        app.on_key(key(KeyCode::Char('l')));
        app.on_key(key(KeyCode::End));
        assert!(to_text(&app.render(80, 24, now)).contains("replay 2/2"));
        app.on_key(key(KeyCode::Char('q')));
        assert!(app.quit());
    }
}
