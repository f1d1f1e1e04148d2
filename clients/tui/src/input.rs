//! Key mapping: which [`Action`] a key press means on each screen, and typed coordinates
//! ([`parse_coords`]). Pure, so it is tested without a terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use jchomp_protocol::board_args::parse_cell;

/// What a key press asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Move the cursor or the list selection up.
    Up,
    /// Down.
    Down,
    /// Left (in a replay: one move back).
    Left,
    /// Right (in a replay: one move forward).
    Right,
    /// To the start (a replay's first position).
    First,
    /// To the end (a replay's last position).
    Last,
    /// Enter: eat at the cursor, join the selected room, submit typed text.
    Confirm,
    /// Esc: close the text being typed.
    Cancel,
    /// Start typing coordinates, beginning with this digit.
    TypeCoords(char),
    /// A character of typed text.
    Char(char),
    /// Delete the last typed character.
    Backspace,
    /// Toggle hints (the per-move annotations).
    Hint,
    /// Add a bot (host only); in the "Play now" list: allow bots or not.
    AddBot,
    /// Leave the room.
    Leave,
    /// Open the create-room form.
    Create,
    /// Watch the selected room.
    Watch,
    /// Join a room by id (typed).
    JoinById,
    /// Refresh the list shown.
    Refresh,
    /// Show the recently finished games.
    Games,
    /// Ask to play again in the same room (after a game).
    Rematch,
    /// Open a new room on the same board (after a game).
    NewRoom,
    /// Open the "Play now" list of quick-pairing presets.
    PlayNow,
    /// Pick the numbered entry (1–9) of a menu.
    Choose(usize),
    /// Quit the program.
    Quit,
    /// Nothing.
    None,
}

/// Which keys apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The room list (and the list of finished games).
    Lobby,
    /// A room (playing or watching).
    Game,
    /// A stored game being stepped through.
    Replay,
    /// A menu of numbered choices (the "Play now" list) or the wait for a pairing.
    Menu,
    /// Text is being typed.
    Text,
}

/// The action a key press means in `mode`. Key releases and repeats are ignored.
pub fn action(mode: Mode, key: KeyEvent) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') | KeyCode::Char('d') => Action::Quit,
            _ => Action::None,
        };
    }
    let arrows = match key.code {
        KeyCode::Up => Action::Up,
        KeyCode::Down => Action::Down,
        KeyCode::Left => Action::Left,
        KeyCode::Right => Action::Right,
        KeyCode::Enter => Action::Confirm,
        KeyCode::Esc => Action::Cancel,
        KeyCode::Home => Action::First,
        KeyCode::End => Action::Last,
        _ => Action::None,
    };
    if arrows != Action::None {
        return arrows;
    }
    match (mode, key.code) {
        (Mode::Text, KeyCode::Backspace) => Action::Backspace,
        (Mode::Text, KeyCode::Char(c)) => Action::Char(c),
        (Mode::Text, _) => Action::None,
        (_, KeyCode::Char('q')) => Action::Quit,
        (Mode::Lobby | Mode::Game | Mode::Replay, KeyCode::Char('k')) => Action::Up,
        (Mode::Lobby | Mode::Game | Mode::Replay, KeyCode::Char('j')) => Action::Down,
        (Mode::Game | Mode::Replay, KeyCode::Char('h')) => Action::Left,
        (Mode::Game | Mode::Replay, KeyCode::Char('l')) => Action::Right,
        (Mode::Replay, KeyCode::Char(' ')) => Action::Right,
        (Mode::Game, KeyCode::Char(' ')) => Action::Confirm,
        (Mode::Game, KeyCode::Char(c)) if c.is_ascii_digit() => Action::TypeCoords(c),
        (Mode::Game | Mode::Replay, KeyCode::Char('?')) => Action::Hint,
        (Mode::Game, KeyCode::Char('b')) => Action::AddBot,
        (Mode::Game, KeyCode::Char('L')) => Action::Leave,
        (Mode::Game, KeyCode::Char('r')) => Action::Rematch,
        (Mode::Game, KeyCode::Char('n')) => Action::NewRoom,
        (Mode::Lobby, KeyCode::Char('c')) => Action::Create,
        (Mode::Lobby, KeyCode::Char('w')) => Action::Watch,
        (Mode::Lobby, KeyCode::Char('i')) => Action::JoinById,
        (Mode::Lobby, KeyCode::Char('r')) => Action::Refresh,
        (Mode::Lobby, KeyCode::Char('g')) => Action::Games,
        (Mode::Lobby, KeyCode::Char('p')) => Action::PlayNow,
        (Mode::Menu, KeyCode::Char(c @ '1'..='9')) => Action::Choose(usize::from(c as u8 - b'0')),
        (Mode::Menu, KeyCode::Char('b')) => Action::AddBot,
        _ => Action::None,
    }
}

/// Typed coordinates that are not a cell.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("type a cell as ROW,COL, e.g. 2,3 (got {0:?})")]
pub struct CoordsError(pub String);

/// Parses typed coordinates `ROW,COL` (also `ROW COL`): the cell syntax of the board flags,
/// with spaces taken as the comma.
pub fn parse_coords(text: &str) -> Result<(i64, i64), CoordsError> {
    let parts: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    parse_cell(&parts.join(",")).map_err(|_| CoordsError(text.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn arrows_and_hjkl_move_the_cursor() {
        for (code, want) in [
            (KeyCode::Up, Action::Up),
            (KeyCode::Char('k'), Action::Up),
            (KeyCode::Down, Action::Down),
            (KeyCode::Char('j'), Action::Down),
            (KeyCode::Left, Action::Left),
            (KeyCode::Char('h'), Action::Left),
            (KeyCode::Right, Action::Right),
            (KeyCode::Char('l'), Action::Right),
            (KeyCode::Enter, Action::Confirm),
        ] {
            assert_eq!(action(Mode::Game, key(code)), want, "{code:?}");
        }
    }

    #[test]
    fn game_keys_and_digits_start_coordinates() {
        assert_eq!(
            action(Mode::Game, key(KeyCode::Char('3'))),
            Action::TypeCoords('3')
        );
        assert_eq!(action(Mode::Game, key(KeyCode::Char('?'))), Action::Hint);
        assert_eq!(action(Mode::Game, key(KeyCode::Char('b'))), Action::AddBot);
        assert_eq!(action(Mode::Game, key(KeyCode::Char('L'))), Action::Leave);
        assert_eq!(action(Mode::Game, key(KeyCode::Char('q'))), Action::Quit);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(Mode::Text, ctrl_c), Action::Quit);
    }

    #[test]
    fn typing_takes_every_character() {
        assert_eq!(
            action(Mode::Text, key(KeyCode::Char('q'))),
            Action::Char('q')
        );
        assert_eq!(
            action(Mode::Text, key(KeyCode::Char('j'))),
            Action::Char('j')
        );
        assert_eq!(
            action(Mode::Text, key(KeyCode::Backspace)),
            Action::Backspace
        );
        assert_eq!(action(Mode::Text, key(KeyCode::Esc)), Action::Cancel);
    }

    #[test]
    fn lobby_keys() {
        assert_eq!(action(Mode::Lobby, key(KeyCode::Char('c'))), Action::Create);
        assert_eq!(action(Mode::Lobby, key(KeyCode::Char('w'))), Action::Watch);
        assert_eq!(
            action(Mode::Lobby, key(KeyCode::Char('r'))),
            Action::Refresh
        );
        assert_eq!(action(Mode::Lobby, key(KeyCode::Char('h'))), Action::None);
        assert_eq!(
            action(Mode::Lobby, key(KeyCode::Char('p'))),
            Action::PlayNow
        );
        let release = KeyEvent {
            kind: KeyEventKind::Release,
            ..key(KeyCode::Enter)
        };
        assert_eq!(action(Mode::Lobby, release), Action::None);
    }

    #[test]
    fn menu_keys_pick_by_number() {
        assert_eq!(
            action(Mode::Menu, key(KeyCode::Char('3'))),
            Action::Choose(3)
        );
        assert_eq!(action(Mode::Menu, key(KeyCode::Char('0'))), Action::None);
        assert_eq!(action(Mode::Menu, key(KeyCode::Char('b'))), Action::AddBot);
        assert_eq!(action(Mode::Menu, key(KeyCode::Char('q'))), Action::Quit);
        assert_eq!(action(Mode::Menu, key(KeyCode::Esc)), Action::Cancel);
        assert_eq!(action(Mode::Lobby, key(KeyCode::Char('3'))), Action::None);
    }

    #[test]
    fn coordinates_parse_with_comma_or_space() {
        assert_eq!(parse_coords("2,3"), Ok((2, 3)));
        assert_eq!(parse_coords(" 12 4 "), Ok((12, 4)));
        assert_eq!(parse_coords("-1,0"), Ok((-1, 0)));
        assert!(parse_coords("2").is_err());
        assert!(parse_coords("2,3,4").is_err());
        assert!(
            parse_coords("a,b")
                .unwrap_err()
                .to_string()
                .contains("ROW,COL")
        );
    }
}
