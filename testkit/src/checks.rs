//! The property each fuzz target checks on one input. Every function takes arbitrary bytes and
//! panics only when the code under test misbehaves; the fuzz targets call them, and the protocol
//! crate's `fuzz_regressions` test replays the kept inputs through them.

use crate::model::{Model, Outcome};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::{
    BOARD_SIZE, CLASSIC_BOARD_SIZE, Cell, Config, EAT_SIZE, Game, GameResult, MAX_POISON, Options,
    PLAYERS, Play, Setup, Variant,
};
use jchomp_protocol::wire::{ClientMessage, ServerMessage};

/// Decoding a client message (as bytes, as text, and the server's way through a JSON value)
/// never panics, and whatever decodes encodes back to the same message. Server messages (what
/// the clients decode) get the same treatment.
pub fn client_message(data: &[u8]) {
    let _ = serde_json::from_slice::<ClientMessage>(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(msg) = serde_json::from_str::<ClientMessage>(text) {
        round_trip(&msg);
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        if let Ok(msg) = serde_json::from_value::<ClientMessage>(value.clone()) {
            round_trip(&msg);
        }
        if let Ok(msg) = serde_json::from_value::<ServerMessage>(value) {
            let json = serde_json::to_string(&msg).unwrap_or_default();
            let back: Result<ServerMessage, _> = serde_json::from_str(&json);
            assert_eq!(back.ok().as_ref(), Some(&msg), "server message {json}");
        }
    }
}

fn round_trip(msg: &ClientMessage) {
    let json = serde_json::to_string(msg).unwrap_or_default();
    let back: Result<ClientMessage, _> = serde_json::from_str(&json);
    assert_eq!(back.ok().as_ref(), Some(msg), "client message {json}");
}

/// A record read from JSON replays or is refused without panicking; a record that replays
/// gives a game whose moves and result are the record's, and the record rebuilt from that game
/// is the same record and replays to the same game.
pub fn record_replay(data: &[u8]) {
    let Ok(record) = serde_json::from_slice::<Record>(data) else {
        return;
    };
    let json = serde_json::to_string(&record).unwrap_or_default();
    let back: Result<Record, _> = serde_json::from_str(&json);
    assert_eq!(back.ok().as_ref(), Some(&record), "record {json}");
    let Ok(game) = record.replay() else {
        return;
    };
    let moves: Vec<(i64, i64, i64)> = game
        .moves()
        .iter()
        .map(|m| (m.seat.into(), m.cell.row.into(), m.cell.col.into()))
        .collect();
    let recorded: Vec<(i64, i64, i64)> = record
        .moves
        .iter()
        .map(|m| (m.seat, m.row, m.col))
        .collect();
    assert_eq!(moves, recorded);
    assert_eq!(game.result(), record.result.map(GameResult::from));
    assert_eq!(game.to_move().is_some(), record.result.is_none());
    let mut rebuilt = Record::from_game(&game, record.seats.clone(), record.config.move_time_ms);
    rebuilt.id = record.id.clone();
    rebuilt.started_ms = record.started_ms;
    rebuilt.finished_ms = record.finished_ms;
    assert_eq!(rebuilt, record);
    assert_eq!(rebuilt.replay().ok(), Some(game));
}

/// Reads the fuzz input a byte at a time; zeros once it runs out.
struct Bytes<'a>(std::slice::Iter<'a, u8>);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    fn small(&mut self, lo: u8, hi: u8) -> i64 {
        i64::from(lo + self.byte() % (hi - lo + 1))
    }

    fn wide(&mut self) -> i64 {
        let mut b = [0u8; 8];
        b.iter_mut().for_each(|x| *x = self.byte());
        i64::from_le_bytes(b)
    }

    /// A coordinate: mostly near the board, sometimes at the ends of `i64`.
    fn coordinate(&mut self) -> i64 {
        match self.byte() {
            250 => i64::MAX,
            251 => i64::MIN,
            252 => i64::MAX - 1,
            253 => i64::MIN + 1,
            254 => 1 << 40,
            b => i64::from(b as i8) % 20,
        }
    }

    fn done(&self) -> bool {
        self.0.len() == 0
    }
}

/// Builds a setup from the input, JChomp, classic Chomp or edge breaks, in misère or normal play,
/// with or without the ban on square bites: usually one inside the ranges
/// (poison cells may repeat), sometimes any numbers at all, with or without an eat size.
/// [`Config::new`] must refuse exactly what breaks a documented rule; a valid configuration is
/// then played with selections from the input (valid ones picked by index, or any coordinates)
/// and the engine must agree with the brute-force model on every answer and every state.
pub fn rules_model(data: &[u8]) {
    let mut input = Bytes(data.iter());
    let first = input.byte();
    let raw = first & 0x80 != 0;
    let variant = match (first & 0x40 != 0, first & 0x10 != 0) {
        (_, true) => Variant::Breaks,
        (true, false) => Variant::Classic,
        (false, false) => Variant::JChomp,
    };
    let options = Options {
        play: if first & 0x08 != 0 {
            Play::Normal
        } else {
            Play::Misere
        },
        no_square_bites: first & 0x04 != 0,
    };
    let (rows, cols, players, eat, poison) = if raw {
        let (rows, cols, players) = (input.wide(), input.wide(), input.wide());
        let eat = [input.wide(), input.wide()];
        // An eat size is mostly given in JChomp and mostly not in classic.
        let eat = (variant.is_jchomp() != (first & 0x20 != 0)).then_some(eat);
        let n = usize::from(input.byte() % 8);
        let poison = (0..n).map(|_| [input.wide(), input.wide()]).collect();
        (rows, cols, players, eat, poison)
    } else {
        let least = variant.board_size().0;
        let (rows, cols) = (input.small(least, 15), input.small(least, 15));
        let players = input.small(2, 4);
        let eat = [input.small(1, 3), input.small(1, 3)];
        let eat = variant.is_jchomp().then_some(eat);
        let n = if variant == Variant::Breaks {
            1
        } else {
            input.small(1, 4)
        };
        let poison = (0..n)
            .map(|_| {
                let r = i64::from(input.byte()) % rows;
                [r, i64::from(input.byte()) % cols]
            })
            .collect();
        (rows, cols, players, eat, poison)
    };
    let setup = Setup {
        rows,
        cols,
        players,
        variant,
        eat,
        poison,
        options,
    };
    let config = Config::new(&setup);
    assert_eq!(config.is_ok(), setup_is_valid(&setup), "{setup:?}");
    let Ok(config) = config else {
        return;
    };
    assert_eq!(config.to_setup(), setup);
    let poison: Vec<(i64, i64)> = setup.poison.iter().map(|&[r, c]| (r, c)).collect();
    let mut model = match (setup.variant, setup.eat) {
        (_, Some([eat_rows, eat_cols])) => Model::new(
            setup.rows,
            setup.cols,
            setup.players,
            (eat_rows, eat_cols),
            &poison,
        ),
        (Variant::Breaks, None) => Model::breaks(setup.rows, setup.cols, setup.players, poison[0]),
        (_, None) => Model::classic(setup.rows, setup.cols, setup.players, &poison),
    }
    .options(options.play == Play::Normal, options.no_square_bites);
    let mut game = Game::new(config);
    same_state(&game, &model);
    while !input.done() {
        let kind = input.byte();
        let (r, c) = if kind % 4 != 0 {
            let valid = model.valid();
            let k = usize::from(input.byte());
            if valid.is_empty() {
                (0, 0)
            } else {
                valid[k % valid.len()]
            }
        } else {
            (input.coordinate(), input.coordinate())
        };
        let engine = game.select(r, c).map(|_| ()).map_err(|e| e.code());
        // The model adds coordinates in plain i64; far off the board the answer is known.
        let expected = if r.unsigned_abs() > 100 || c.unsigned_abs() > 100 {
            Err(if model.outcome.is_some() {
                "not_playing"
            } else {
                "out_of_range"
            })
        } else {
            model.select(r, c)
        };
        assert_eq!(engine, expected, "selection ({r}, {c})");
        same_state(&game, &model);
    }
    let record = Record::from_game(&game, vec![String::new(); setup.players as usize], None);
    assert_eq!(record.config, ConfigJson::new(&config, None));
    assert_eq!(record.replay().ok(), Some(game));
}

/// Whether a setup lies inside every documented range, with an eat size in JChomp and none in
/// classic Chomp (the model's idea of a valid config).
fn setup_is_valid(s: &Setup) -> bool {
    let within = |(lo, hi): (u8, u8), v: i64| (i64::from(lo)..=i64::from(hi)).contains(&v);
    let eat_ok = match (s.variant, s.eat) {
        (Variant::JChomp, Some([er, ec])) => {
            within(EAT_SIZE, er) && within(EAT_SIZE, ec) && !(s.options.no_square_bites && er == ec)
        }
        (Variant::JChomp, None) | (Variant::Classic | Variant::Breaks, Some(_)) => false,
        (Variant::Classic | Variant::Breaks, None) => true,
    };
    // JChomp boards are 4–15 each way; classic bars and broken bars 1–15, but never the
    // poison alone; a broken bar has exactly one poison cell.
    let size = match s.variant {
        Variant::JChomp => BOARD_SIZE,
        Variant::Classic | Variant::Breaks => CLASSIC_BOARD_SIZE,
    };
    if s.variant == Variant::Breaks && s.poison.len() != 1 {
        return false;
    }
    if !(within(size, s.rows)
        && within(size, s.cols)
        && (s.variant.is_jchomp() || s.rows * s.cols >= 2)
        && within(PLAYERS, s.players)
        && eat_ok)
    {
        return false;
    }
    let inside = s
        .poison
        .iter()
        .all(|&[r, c]| (0..s.rows).contains(&r) && (0..s.cols).contains(&c));
    let mut distinct = s.poison.clone();
    distinct.sort_unstable();
    distinct.dedup();
    (1..=MAX_POISON).contains(&s.poison.len()) && inside && distinct.len() == s.poison.len()
}

/// The engine's game and the model agree on the valid selections, the eaten cells, the outcome
/// and the seat to move.
fn same_state(game: &Game, model: &Model) {
    let cells = |bits: jchomp_protocol::rules::Bits| -> Vec<(i64, i64)> {
        bits.iter()
            .map(Cell::from_index)
            .map(|c| (i64::from(c.row), i64::from(c.col)))
            .collect()
    };
    assert_eq!(cells(game.position().selections()), model.valid());
    let eaten: Vec<(i64, i64)> = model.eaten.iter().copied().collect();
    assert_eq!(cells(game.position().eaten(game.config())), eaten);
    let outcome = match game.result() {
        None => None,
        Some(GameResult::Poisoned { loser }) => Some(Outcome::Poisoned(i64::from(loser))),
        Some(GameResult::Tie) => Some(Outcome::Tie),
        Some(GameResult::Won { winner }) => Some(Outcome::Won(i64::from(winner))),
        Some(other) => panic!("the rules alone ended a game with {other:?}"),
    };
    assert_eq!(outcome, model.outcome);
    if model.outcome.is_none() {
        assert_eq!(game.to_move().map(i64::from), Some(model.to_move));
    }
}
