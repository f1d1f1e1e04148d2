//! [`export`] (`jchomp-bot tournament --from-server ADDRESS ID --out DIR`): a tournament a
//! server ran, read from it — its view through `watch_tournament` (the JSON that
//! `GET /api/tournaments/ID` serves) and every game's record through `get_game` — and written
//! as this program's own output directory, which is then read back by the reader `--resume`
//! uses, so the standings, `results.json` and the printed table are the offline ones.

use super::output::{OutDir, OutputError};
use super::schedule::Seating;
use super::server_run::ServerRun;
use super::settings::{Length, Settings, SettingsError};
use super::starts::Starts;
use super::tourney::{Options, Outcome, TournamentError, resume};
use jchomp_protocol::connection::{Connection, ConnectionError, ServerError};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::record::Record;
use jchomp_protocol::tournament::{TournamentGame, TournamentView};
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use std::path::Path;

/// Why a server's tournament could not be exported. Each message is whole.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The server could not be reached, or the connection failed.
    #[error("{0}")]
    Connection(ConnectionError),
    /// The server refused a request.
    #[error("{what}: {error}")]
    Refused {
        /// What was asked for.
        what: String,
        /// The server's answer.
        error: ServerError,
    },
    /// The tournament cannot be written as an output directory.
    #[error("{0}")]
    Settings(SettingsError),
    /// A game's stored record does not match the tournament's game.
    #[error("game {game}: the stored record {what}")]
    Record {
        /// The game's id on the server.
        game: String,
        /// What does not match.
        what: String,
    },
    /// The output directory could not be written.
    #[error("{0}")]
    Output(OutputError),
    /// Reading the directory back failed.
    #[error("{0}")]
    Tournament(TournamentError),
    /// No runtime could be started for the connection.
    #[error("cannot start the connection's runtime: {0}")]
    Runtime(std::io::Error),
}

/// Reads tournament `id` from the server at `server` (a `ws://` URL), writes it into `dir` as
/// an offline tournament's output directory, and reads it back as `--resume` does (with
/// `options`; nothing is played).
pub fn export(
    server: &str,
    id: &str,
    dir: &Path,
    options: &Options,
) -> Result<Outcome, ExportError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExportError::Runtime)?;
    rt.block_on(async {
        let mut conn = Connection::connect(server)
            .await
            .map_err(ExportError::Connection)?;
        let view = view(&mut conn, id).await?;
        let settings = settings(server, view);
        settings.validate().map_err(ExportError::Settings)?;
        let mut out = OutDir::create(dir, &settings).map_err(ExportError::Output)?;
        // `settings` made it a server run: its games are the view's.
        if let Some(run) = settings.starts.server_run() {
            for (index, game) in run.view.games.iter().enumerate() {
                let record = record(&mut conn, &game.game).await?;
                out.append(&line(index, game, run.view.config_of(game), record)?)
                    .map_err(ExportError::Output)?;
            }
        }
        out.flush().map_err(ExportError::Output)?;
        conn.close().await;
        Ok::<_, ExportError>(())
    })?;
    resume(dir, options).map_err(ExportError::Tournament)
}

/// The tournament's view now.
async fn view(conn: &mut Connection, id: &str) -> Result<TournamentView, ExportError> {
    let watch = ClientMessage::WatchTournament {
        all_games: true,
        tournament: id.to_string(),
    };
    let answer = conn
        .request(&watch, |m| match m {
            ServerMessage::Tournament(view) if view.id == id => Some(*view),
            _ => None,
        })
        .await
        .map_err(ExportError::Connection)?;
    answer.map_err(|error| ExportError::Refused {
        what: format!("tournament {id}"),
        error,
    })
}

/// The stored record of game `game`.
async fn record(conn: &mut Connection, game: &str) -> Result<Record, ExportError> {
    let ask = ClientMessage::GetGame {
        game: game.to_string(),
    };
    let answer = conn
        .request(&ask, |m| match m {
            ServerMessage::Game { record } if record.id.as_deref() == Some(game) => Some(record),
            _ => None,
        })
        .await
        .map_err(ExportError::Connection)?;
    answer.map_err(|error| ExportError::Refused {
        what: format!("game {game}"),
        error,
    })
}

/// The settings of the tournament `view` shows, read from `server`: its entrants, its one
/// configuration and its games, listed; no bots, since nothing is played here.
fn settings(server: &str, view: TournamentView) -> Settings {
    Settings {
        bots: Vec::new(),
        gauntlet: false,
        players: u8::try_from(view.spec.config.players).unwrap_or(0),
        seating: Seating::default(),
        seed: 0,
        length: Length::Games(view.games.len() as u64),
        sprt: None,
        margin_ms: 0,
        server: None,
        time_control: None,
        starts: Starts::Server(Box::new(ServerRun {
            server: server.to_string(),
            view,
        })),
    }
}

/// Line `index` of `games.jsonl`: the game's stored record with the index as its id, once its
/// seats, result and board (`config`, the configuration the tournament says it played) are
/// checked against the tournament's.
fn line(
    index: usize,
    game: &TournamentGame,
    config: Option<&ConfigJson>,
    mut record: Record,
) -> Result<String, ExportError> {
    let differs = |what: String| ExportError::Record {
        game: game.game.clone(),
        what,
    };
    if record.seats != game.seats {
        return Err(differs(format!(
            "seats {:?}, the tournament {:?}",
            record.seats, game.seats
        )));
    }
    if let Some(config) = config
        && record.config.setup() != config.setup()
    {
        return Err(differs(format!(
            "plays {}, the tournament {}",
            board(&record.config),
            board(config)
        )));
    }
    if record.result != game.result {
        return Err(differs(format!(
            "ends {:?}, the tournament says {:?}",
            record.result, game.result
        )));
    }
    record.id = Some(index.to_string());
    serde_json::to_string(&record).map_err(|e| ExportError::Output(OutputError::Json(e)))
}

/// A configuration in the one-line notation (as JSON when the rules refuse it).
fn board(config: &ConfigJson) -> String {
    config
        .validate()
        .map_or_else(|_| format!("{config:?}"), |valid| valid.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::participant::Participant;
    use jchomp_engine::spec::BotSpec;

    #[test]
    fn the_settings_of_a_server_tournament_name_its_entrants_and_no_bots() {
        let view = serde_json::json!({
            "id": "t1", "status": "finished", "round": 1, "standings": [],
            "spec": {"name": "cup", "format": {"kind": "swiss", "rounds": 1},
                     "config": {"rows": 4, "cols": 4, "players": 2, "eat": [1, 1],
                                "poison": [[0, 0]]}},
            "entrants": ["b", "a", "c"],
            "games": [{"game": "g1", "round": 1, "seats": ["a", "b"],
                       "result": {"kind": "poisoned", "loser": 0}}]
        });
        let mut s = settings("ws://h:1/ws", serde_json::from_value(view).unwrap());
        s.validate().unwrap();
        assert_eq!(s.names(), ["b", "a", "c"]);
        assert_eq!(s.total_games(), Some(1));
        assert_eq!(s.schedule().slot(0).seats, vec![1, 0]);
        s.bots.push(Participant::Bot(BotSpec::Random));
        assert!(matches!(s.validate(), Err(SettingsError::ServerBots)));
    }

    #[test]
    fn a_record_is_numbered_and_held_to_the_tournament_s_game() {
        use jchomp_testkit::fixtures::{RecordFixture, record};
        let record = record("4x4 poison 0,0").id("g1").play(&[(3, 3), (0, 0)]);
        // Built from JSON, as a server sends it (fields added later are optional there).
        let game = |seats: [&str; 2], loser: u8| -> TournamentGame {
            serde_json::from_value(serde_json::json!({"game": "g1", "round": 1, "seats": seats,
                "result": {"kind": "poisoned", "loser": loser}}))
            .unwrap()
        };
        let text = line(4, &game(["ann", "bob"], 1), None, record.clone()).unwrap();
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back.id.as_deref(), Some("4"));
        assert_eq!(back.moves, record.moves);
        let refusal = |g| line(4, &g, None, record.clone()).unwrap_err().to_string();
        assert!(refusal(game(["bob", "ann"], 1)).starts_with("game g1: the stored record seats"));
        assert!(refusal(game(["ann", "bob"], 0)).contains("the tournament says"));
        // The board is held to the configuration the tournament says the game played.
        let same = record.config.clone();
        assert!(line(4, &game(["ann", "bob"], 1), Some(&same), record.clone()).is_ok());
        let other: ConfigJson = serde_json::from_value(
            serde_json::json!({"rows": 5, "cols": 4, "players": 2, "eat": [1, 1], "poison": [[0, 0]]}),
        )
        .unwrap();
        let why = line(4, &game(["ann", "bob"], 1), Some(&other), record.clone())
            .unwrap_err()
            .to_string();
        assert!(why.contains("the stored record plays 4x4"), "{why}");
        assert!(why.contains("the tournament 5x4"), "{why}");
    }
}
