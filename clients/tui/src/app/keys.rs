//! [`App::on_key`]: what each key does in the lobby, in a room, in a replay and while typing.

use super::{App, GAMES_LIMIT, PromptKind, Screen};
use crate::cli::{CreateArgs, parse_bot};
use crate::hint;
use crate::input::{self, Action, Mode};
use crate::style::Style;
use crossterm::event::KeyEvent;
use jchomp_protocol::wire::{ClientMessage, RoomStatus};

impl App {
    fn mode(&self) -> Mode {
        if self.prompt.is_some() {
            return Mode::Text;
        }
        match self.screen {
            Screen::Lobby | Screen::Games { .. } => Mode::Lobby,
            Screen::Room(_) => Mode::Game,
            Screen::Replay { .. } => Mode::Replay,
            Screen::PlayNow { .. } | Screen::Seeking(_) => Mode::Menu,
        }
    }

    /// A key was pressed.
    pub fn on_key(&mut self, key: KeyEvent) {
        if self.offer.is_some() {
            match input::action(Mode::Text, key) {
                Action::Quit => self.quit = true,
                action => self.offer_key(action),
            }
            return;
        }
        let action = input::action(self.mode(), key);
        if let Screen::Seeking(_) = self.screen {
            // q, like Esc, first takes the player out of the pool.
            return self.seeking_key(action);
        }
        if action == Action::Quit {
            self.quit = true;
            return;
        }
        if let Some((kind, mut text)) = self.prompt.take() {
            match action {
                Action::Char(c) => {
                    text.push(c);
                    self.preview_typed(kind, &text);
                    self.prompt = Some((kind, text));
                }
                Action::Backspace => {
                    text.pop();
                    self.preview_typed(kind, &text);
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
            Screen::Games { .. } => self.games_key(action),
            Screen::Room(_) => self.room_key(action),
            Screen::Replay { .. } => self.replay_key(action),
            Screen::PlayNow { .. } => self.play_now_key(action),
            Screen::Seeking(_) => self.seeking_key(action),
        }
    }

    /// Typed coordinates move the cursor (and so the preview) as soon as they name a cell of
    /// the board, before Enter.
    fn preview_typed(&mut self, kind: PromptKind, text: &str) {
        let Screen::Room(r) = &mut self.screen else {
            return;
        };
        let (Some(state), PromptKind::Coords) = (&r.state, kind) else {
            return;
        };
        if let Ok((row, col)) = input::parse_coords(text)
            && (0..i64::from(state.config.rows())).contains(&row)
            && (0..i64::from(state.config.cols())).contains(&col)
        {
            r.cursor = (row, col);
        }
    }

    fn submit(&mut self, kind: PromptKind, text: &str) {
        match kind {
            PromptKind::Coords => match input::parse_coords(text) {
                Ok(cell) => {
                    if let Screen::Room(r) = &mut self.screen {
                        r.cursor = cell;
                    }
                    self.eat(None);
                }
                Err(e) => self.say(e.to_string(), Style::Bad),
            },
            PromptKind::Bot => {
                let text = text.trim();
                if text.is_empty() {
                    self.send(ClientMessage::AddBot {
                        seat: None,
                        bot: None,
                    });
                } else {
                    match parse_bot(text) {
                        Ok(spec) => {
                            self.notice = None;
                            self.send(ClientMessage::AddBot {
                                seat: None,
                                bot: Some(spec),
                            })
                        }
                        Err(e) => self.say(e.to_string(), Style::Bad),
                    }
                }
            }
            PromptKind::Create => match CreateArgs::parse_form(text) {
                Ok(args) => self.create(args),
                Err(e) => {
                    self.say(e.to_string(), Style::Bad);
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
                     --players N --variant classic|breaks --play normal --no-square-bites \
                     --move-time 30s --bot SPEC (repeat) --rated",
                    Style::Dim,
                );
            }
            Action::JoinById => self.prompt = Some((PromptKind::JoinId, String::new())),
            Action::PlayNow => self.open_play_now(),
            Action::Refresh => self.send(ClientMessage::ListRooms),
            Action::Games => {
                self.notice = None;
                self.screen = Screen::Games { selected: 0 };
                self.send(ClientMessage::ListGames {
                    limit: Some(GAMES_LIMIT),
                });
            }
            _ => {}
        }
    }

    fn room_key(&mut self, action: Action) {
        // A poisoned selection is eaten only on a second Enter right after the first.
        let armed = self.confirm_poison.take();
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
            Action::Confirm => self.eat(armed),
            Action::TypeCoords(c) if r.seat.is_some() => {
                self.prompt = Some((PromptKind::Coords, c.to_string()));
            }
            Action::Hint => self.toggle_hints(),
            Action::Rematch => self.rematch(),
            Action::NewRoom => self.new_room(),
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
                let in_play = r
                    .state
                    .as_ref()
                    .is_some_and(|s| s.status == RoomStatus::Playing);
                let seated = r.seat.is_some();
                // A spectator, or anyone once the game is not in play, leaves with L or Esc; a
                // player in a game in play only with L twice (leaving loses the game).
                if !in_play || !seated || (action == Action::Leave && self.confirm_leave) {
                    self.send(ClientMessage::Leave);
                    self.back_to_lobby();
                } else if action == Action::Cancel {
                    self.say(
                        "Esc does not leave a game in play; L twice leaves it (and loses it).",
                        Style::Dim,
                    );
                } else if action == Action::Leave {
                    self.confirm_leave = true;
                    self.say(
                        "Leaving a game in play loses it. Press L again to leave.",
                        Style::Bad,
                    );
                    return;
                }
            }
            _ => {}
        }
        self.confirm_leave = false;
    }

    /// After a game, asks to play again in the same room: the new game starts once every
    /// person seated has asked (bots agree), and the game-over panel says who has.
    fn rematch(&mut self) {
        let Screen::Room(r) = &self.screen else {
            return;
        };
        let finished = r
            .state
            .as_ref()
            .is_some_and(|s| s.status == RoomStatus::Finished);
        if r.seat.is_none() {
            self.say("Only the players can ask for a rematch.", Style::Bad);
        } else if !finished {
            self.say(
                "A rematch can be asked for once this game is over.",
                Style::Bad,
            );
        } else {
            self.send(ClientMessage::Rematch);
            self.say(
                "Rematch asked: it starts when everyone has asked.",
                Style::Accent,
            );
        }
    }

    /// After a game, opens a new room on the same board and clock, with a bot (the server's
    /// default) in each seat a bot held; the players join it by its id.
    fn new_room(&mut self) {
        let Screen::Room(r) = &self.screen else {
            return;
        };
        let Some(state) = r
            .state
            .as_ref()
            .filter(|s| s.status == RoomStatus::Finished)
        else {
            self.say(
                "A new game can be started once this one is over.",
                Style::Bad,
            );
            return;
        };
        let bots = state
            .seats
            .iter()
            .skip(1)
            .filter(|s| s.as_ref().is_some_and(|s| s.bot))
            .map(|_| None)
            .collect();
        let config = state.config_json.clone();
        self.send(ClientMessage::Leave);
        self.pending_bots = bots;
        let mut screen = super::RoomScreen::new(None);
        screen.host = true;
        self.screen = Screen::Room(Box::new(screen));
        self.notice = None;
        self.send(ClientMessage::CreateRoom {
            bots: None,
            name: self.name.clone(),
            config,
        });
    }

    /// Eats at the cursor, if the local rules allow it. A selection that eats poison (and so
    /// loses, in misère play) is only sent when it was `armed` by an Enter just before on the
    /// same cell.
    fn eat(&mut self, armed: Option<(i64, i64)>) {
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
                        e.explain(&state.config, row, col)
                    )
                }),
        };
        // In normal play a marked cell wins: nothing to confirm.
        let poisoned = problem.is_none()
            && state.config.play() == jchomp_protocol::rules::Play::Misere
            && state
                .config
                .rect(jchomp_protocol::rules::Cell::new(row as u8, col as u8))
                .intersects(state.config.poison_mask());
        match problem {
            Some(text) => self.say(text, Style::Bad),
            None if poisoned && armed != Some((row, col)) => {
                self.confirm_poison = Some((row, col));
                self.say(
                    format!(
                        "{row},{col} eats poison and loses the game. Press Enter again to eat it."
                    ),
                    Style::Bad,
                );
            }
            None => {
                self.notice = None;
                self.send(ClientMessage::Move { row, col });
            }
        }
    }

    fn games_key(&mut self, action: Action) {
        let Screen::Games { selected } = &mut self.screen else {
            return;
        };
        match action {
            Action::Up => *selected = selected.saturating_sub(1),
            Action::Down => *selected = (*selected + 1).min(self.games.len().saturating_sub(1)),
            Action::Confirm => {
                if let Some(g) = self.games.get(*selected) {
                    let game = g.game.clone();
                    self.send(ClientMessage::GetGame { game });
                }
            }
            Action::Refresh | Action::Games => self.send(ClientMessage::ListGames {
                limit: Some(GAMES_LIMIT),
            }),
            Action::Cancel => self.back_to_lobby(),
            _ => {}
        }
    }

    fn replay_key(&mut self, action: Action) {
        let Screen::Replay {
            record,
            step,
            back,
            review,
        } = &mut self.screen
        else {
            return;
        };
        let n = record.moves.len();
        match action {
            Action::Hint if review.offered() => review.show = !review.show,
            Action::Hint => self.say(hint::HintError::Players.refusal(), Style::Bad),
            Action::Left | Action::Up => *step = step.saturating_sub(1),
            Action::Right | Action::Down | Action::Confirm => *step = (*step + 1).min(n),
            Action::First => *step = 0,
            Action::Last => *step = n,
            Action::Cancel if *back => {
                self.screen = Screen::Games { selected: 0 };
            }
            Action::Cancel => self.quit = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::cli::CreateArgs;
    use crate::style::to_text;
    use crossterm::event::KeyCode;
    use jchomp_protocol::wire::{ClientMessage, RoomStatus, ServerMessage};
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, moved, record, room_summary, seat};
    use std::time::Instant;

    #[test]
    fn cursor_keys_and_enter_send_a_move_on_my_turn() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Char('j')));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Move { row: 1, col: 2 }]
        );
    }

    #[test]
    fn item4_the_cursor_starts_on_a_safe_cell() {
        let app = seated(0);
        assert_eq!(app.room().unwrap().cursor, (0, 1));
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains(" 0  P [#]"), "{text}");
        assert!(text.contains("0,1: eats 1 cell"), "{text}");
    }

    #[test]
    fn item4_a_poisoned_selection_asks_for_a_second_enter() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Left));
        app.on_key(key(KeyCode::Enter));
        assert!(
            app.take_outbox().is_empty(),
            "one key does not lose the game"
        );
        assert_eq!(
            app.notice().unwrap().text,
            "0,0 eats poison and loses the game. Press Enter again to eat it."
        );
        // Any other key disarms it.
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Left));
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Move { row: 0, col: 0 }]
        );
        // Typed coordinates ask too.
        let mut app = seated(0);
        for c in "0,0".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Move { row: 0, col: 0 }]
        );
    }

    #[test]
    fn item12_esc_leaves_a_watched_room_and_typed_coordinates_move_the_preview() {
        let mut app = App::new("ws://s/ws", "me", Start::Watch("r1".into()));
        app.take_outbox();
        app.on_message(ServerMessage::Room(snapshot(3, 0)), Instant::now());
        app.on_key(key(KeyCode::Esc));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Leave, ClientMessage::ListRooms]
        );
        assert!(matches!(app.screen, Screen::Lobby));
        // A player in a game in play is told what Esc does not do, and how to leave.
        let mut app = seated(0);
        app.on_key(key(KeyCode::Esc));
        assert!(app.take_outbox().is_empty());
        assert!(
            app.notice().unwrap().text.contains("L twice"),
            "{:?}",
            app.notice()
        );
        // Typed coordinates move the cursor as soon as they name a cell.
        for c in "3,4".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        assert_eq!(app.room().unwrap().cursor, (3, 4));
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("3,4: eats 1 cell"), "{text}");
        assert!(text.contains(" 3  #  #  #  # [#]"), "{text}");
        app.on_key(key(KeyCode::Backspace));
        app.on_key(key(KeyCode::Backspace));
        app.on_key(key(KeyCode::Char('9')));
        assert_eq!(app.room().unwrap().cursor, (3, 4), "9 is off the board");
    }

    #[test]
    fn refused_selections_stay_local_with_the_reason() {
        let mut app = seated(1);
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert_eq!(app.notice().unwrap().text, "It is not your turn.");

        let mut app = seated(0);
        let now = Instant::now();
        app.on_message(ServerMessage::Moved(moved("r1", 4, 0, (2, 2))), now);
        app.on_message(ServerMessage::Moved(moved("r1", 5, 1, (3, 3))), now);
        for c in "2,2".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_outbox().is_empty());
        assert_eq!(
            app.notice().unwrap().text,
            "Cannot eat at 2,2: part of the 1×1 selection at (2,2) is already eaten."
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
    fn lobby_selection_joins_watches_and_creates() {
        let mut app = App::new("s", "me", Start::Lobby);
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
        let summary = |id: &str| {
            room_summary(id, "4x5 poison 0,0")
                .timed(30_000)
                .seats([Some(seat("a")), None])
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
        assert_eq!(
            app.notice().unwrap().text,
            "--size must be 4–15 rows by 4–15 columns, got 3x5"
        );
        for c in "x".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Esc));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::JoinRoom {
                seat: None,
                room: "r2".into(),
                name: "me".into()
            }]
        );
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
                seat: None,
                bot: Some("level:3".into())
            }]
        );
    }

    #[test]
    fn a_replay_steps_back_and_forth() {
        let record = record("4x5 poison 0,0")
            .id("g7")
            .timed(30_000)
            .play(&[(3, 4), (0, 0)]);
        let mut app = App::new("s", "me", Start::Replay(record));
        assert!(!app.needs_server());
        assert!(app.take_outbox().is_empty());
        let now = Instant::now();
        let text = to_text(&app.render(80, 24, now));
        assert!(text.contains("replay 2/2"), "{text}");
        assert!(
            text.contains("bob ate poison and lost; ann wins."),
            "{text}"
        );
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

    #[test]
    fn leaving_a_game_in_play_asks_first() {
        let mut app = seated(0);
        app.on_key(key(KeyCode::Char('L')));
        assert!(app.take_outbox().is_empty());
        assert!(app.notice().unwrap().text.contains("Press L again"));
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Char('L')));
        assert!(app.take_outbox().is_empty(), "another key cancels");
        app.on_key(key(KeyCode::Esc));
        assert!(
            app.take_outbox().is_empty(),
            "Esc does not leave a game in play"
        );
        app.on_key(key(KeyCode::Char('L')));
        app.on_key(key(KeyCode::Char('L')));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::Leave, ClientMessage::ListRooms]
        );
        assert!(matches!(app.screen, Screen::Lobby));
    }

    #[test]
    fn the_games_list_opens_a_replay_and_goes_back() {
        use jchomp_protocol::wire::GameSummary;
        let mut app = App::new("s", "me", Start::Lobby);
        app.take_outbox();
        app.on_key(key(KeyCode::Char('g')));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::ListGames {
                limit: Some(GAMES_LIMIT)
            }]
        );
        let record = record("4x5 poison 0,0")
            .id("g1")
            .timed(30_000)
            .finished(0)
            .play(&[(0, 0)]);
        let summary = |id: &str| GameSummary {
            game: id.into(),
            ..record.summary()
        };
        let now = Instant::now();
        app.on_message(
            ServerMessage::Games {
                games: vec![summary("g0"), summary("g1")],
            },
            now,
        );
        let text = to_text(&app.render(80, 24, now));
        assert!(text.contains("> g0"), "{text}");
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_outbox(),
            vec![ClientMessage::GetGame { game: "g1".into() }]
        );
        app.on_message(ServerMessage::Game { record }, now);
        let text = to_text(&app.render(80, 24, now));
        assert!(text.contains("replay 0/1"), "{text}");
        app.on_key(key(KeyCode::Right));
        let text = to_text(&app.render(80, 24, now));
        assert!(
            text.contains("ann ate poison and lost; bob wins."),
            "{text}"
        );
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(app.screen, Screen::Games { .. }));
        assert!(!app.quit());
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(app.screen, Screen::Lobby));
        assert_eq!(app.take_outbox(), vec![ClientMessage::ListRooms]);
    }
}
