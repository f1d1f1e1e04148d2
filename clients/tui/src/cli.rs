//! The `jchomp` command line: global flags, subcommands, and the `create` options shared with
//! the lobby's create form.

use clap::{Parser, Subcommand};
use jchomp_engine::{BotSpec, SpecError};
use jchomp_protocol::board_args::BoardArgs;
use jchomp_protocol::board_args::BoardError;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::server_url::parse_server;
use jchomp_protocol::wire::{MAX_NAME, check_name};
use std::path::PathBuf;

/// The server address used when `--server` is not given.
pub(crate) const DEFAULT_SERVER: &str = "ws://127.0.0.1:7777/ws";

/// A `jchomp` command line as the user should type it: `args` after `--server SERVER` when
/// the server is not the default.
pub(crate) fn command_line(server: &str, args: &str) -> String {
    if server == DEFAULT_SERVER {
        format!("jchomp {args}")
    } else {
        format!("jchomp --server {server} {args}")
    }
}

/// Play, watch and manage JChomp rooms from a terminal.
#[derive(Debug, Parser)]
#[command(
    name = "jchomp",
    version,
    about = "Play, watch and manage JChomp games from a terminal"
)]
pub struct Cli {
    /// The server: host:port, or a ws://, wss://, http:// or https:// URL (the path /ws is
    /// added when the URL has none).
    #[arg(
        long,
        global = true,
        env = "JCHOMP_SERVER",
        default_value = DEFAULT_SERVER,
        value_name = "ADDRESS",
        value_parser = parse_server
    )]
    pub(crate) server: String,
    /// Your display name (default: $USER).
    #[arg(long, global = true)]
    pub(crate) name: Option<String>,
    /// The classic Chomp database file (default: classic-15x15.db in the user's data
    /// directory; see --help).
    ///
    /// Two-player classic games with the poison at 0,0 take their annotations (`?`) from it.
    /// It is read from PATH, or built and saved there in the background the first time it is
    /// needed (about 155 MB, in under a minute; the engine annotates meanwhile). Default:
    /// jchomp/classic-15x15.db in the user's data directory ($XDG_DATA_HOME, else
    /// ~/.local/share), or ./classic-15x15.db when neither is set.
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) classic_db: Option<PathBuf>,
    /// What to do; without a subcommand the lobby opens.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a room (you take seat 0 and are its host), fill seats with bots, then play.
    Create(CreateArgs),
    /// Take the next free seat of a room, then play.
    Join {
        /// The room id (see `jchomp rooms`).
        room: String,
    },
    /// Watch a room without a seat.
    Watch {
        /// The room id.
        room: String,
    },
    /// Take a dropped seat back with its token.
    Resume {
        /// The seat token given when the seat was taken.
        token: String,
    },
    /// Be paired with players of about your rating for one of the server's games; without a
    /// PRESET, list them.
    ///
    /// The game starts as soon as the server finds the players (bots of about your level
    /// may take the seats nobody took after the server's patience with --bots). The room
    /// is rated when every person in it is logged in (`jchomp login`).
    Play {
        /// The preset's name (`duel`, `blitz`, …; `jchomp play` lists them).
        preset: Option<String>,
        /// Let bots take the seats nobody took once the server's patience has run out.
        #[arg(long)]
        bots: bool,
    },
    /// List the server's rooms.
    Rooms {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List recently finished games.
    Games {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// How many games at most (1 or more).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// Make an account on the server and log in to it (the session is kept for later runs).
    ///
    /// The password is read from JCHOMP_PASSWORD when it is set, else from the first line of
    /// standard input when that is not a terminal, else asked for twice without echo.
    Register {
        /// The account name: 3–20 letters, digits, `_` or `-`, beginning with a letter
        /// (default: --name, else $USER).
        name: Option<String>,
    },
    /// Log in to an account (the session is kept for later runs).
    ///
    /// Every connection to this server logs in with it first, so that rated rooms are open
    /// to you.
    ///
    /// The password is read from JCHOMP_PASSWORD when it is set, else from the first line of
    /// standard input when that is not a terminal, else asked for without echo.
    Login {
        /// The account name, any case (default: --name, else $USER).
        name: Option<String>,
    },
    /// End the kept session on the server and forget it.
    Logout {
        /// End every session of the account, on every device, not only this one.
        #[arg(long)]
        everywhere: bool,
    },
    /// Print a category's best players (people, or bots with --bots).
    Leaderboard {
        /// The category: the variant and the player count (`jchomp:2`, `jchomp:3-4`,
        /// `classic:2`, `classic:3-4`, …).
        #[arg(long, default_value = "jchomp:2", value_name = "CATEGORY")]
        category: String,
        /// List bot accounts and built-in levels instead of people.
        #[arg(long)]
        bots: bool,
        /// Only players with a rated game in the last N days (1–3650; the server's default is
        /// 30).
        #[arg(long, value_name = "N")]
        days: Option<u32>,
        /// Print the server's JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print a player's ratings, counts and recent rated games.
    Player {
        /// The account name (any case), or a built-in level such as `level:3`.
        name: String,
        /// Print the server's JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// List the tournaments the server runs.
    Tournaments {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Follow a tournament until it has finished: its standings and, in a round robin, its
    /// crosstable, redrawn as games end (off a terminal: a line per change, then the final
    /// tables).
    Tournament {
        /// The tournament's id (see `jchomp tournaments`).
        id: String,
    },
    /// Step through a stored game, or print its record with `--json`.
    Replay {
        /// The game id (see `jchomp games`).
        game: String,
        /// Print the game record as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The options of a new room, as `jchomp create` and the lobby's create form take them.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct CreateArgs {
    /// The board.
    #[command(flatten)]
    pub(crate) board: BoardArgs,
    /// Time for each move (`30`, `30s`, `1500ms`, `2m`); a seat that runs out loses.
    #[arg(long, value_name = "TIME", value_parser = parse_move_time)]
    pub(crate) move_time: Option<u64>,
    /// Fill a seat with a server-run bot (`random`, `greedy`, `level:3`, `search:depth=6`, …);
    /// repeat for more bots.
    #[arg(long = "bot", value_name = "SPEC", value_parser = parse_bot)]
    pub(crate) bots: Vec<String>,
    /// A rated room: only players logged in to an account may sit (bots: the built-in
    /// levels), and the result updates their ratings. Needs `jchomp login` first.
    #[arg(long)]
    pub(crate) rated: bool,
}

/// Why the options of a new room are refused before anything is sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreateError {
    /// The board is not a valid game.
    #[error(transparent)]
    Config(#[from] BoardError),
    /// More bots than free seats.
    #[error("{bots} bots cannot fit: a {players}-player room has {} besides yours", free_seats(*.players))]
    TooManyBots {
        /// Bots asked for.
        bots: usize,
        /// Players in the room.
        players: usize,
    },
}

fn free_seats(players: usize) -> String {
    match players.saturating_sub(1) {
        1 => "1 free seat".to_owned(),
        n => format!("{n} free seats"),
    }
}

impl CreateArgs {
    /// The configuration to send, validated locally first so mistakes show at once.
    pub fn config_json(&self) -> Result<ConfigJson, BoardError> {
        let config = self.board.config()?;
        let mut json = ConfigJson::new(&config, self.move_time);
        json.rated = self.rated;
        Ok(json)
    }

    /// Checks the whole set of options: the board, and that the bots fit the free seats.
    pub(crate) fn validate(&self) -> Result<ConfigJson, CreateError> {
        let config = self.config_json()?;
        let players = config.players as usize;
        if self.bots.len() >= players {
            return Err(CreateError::TooManyBots {
                bots: self.bots.len(),
                players,
            });
        }
        Ok(config)
    }

    /// The default options as the lobby's form shows them.
    pub(crate) fn form_default() -> &'static str {
        "--size 6x7 --eat 1x1 --poison 0,0 --players 2"
    }

    /// Parses the lobby's create form (the same flags as `jchomp create`). The error reads as
    /// one line in words.
    pub fn parse_form(text: &str) -> Result<CreateArgs, FormError> {
        #[derive(Parser)]
        #[command(name = "create", no_binary_name = true)]
        struct Form {
            #[command(flatten)]
            args: CreateArgs,
        }
        let form = Form::try_parse_from(text.split_whitespace()).map_err(FormError::Flags)?;
        form.args.validate()?;
        Ok(form.args)
    }
}

/// Why the lobby's create form is refused.
#[derive(Debug, thiserror::Error)]
pub enum FormError {
    /// The flags do not parse; shown as the first line of clap's message.
    #[error("{}", first_line(.0))]
    Flags(clap::Error),
    /// The options are not valid together.
    #[error(transparent)]
    Create(#[from] CreateError),
}

/// The first line of a clap error, without its `error: ` prefix.
fn first_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.trim_start_matches("error: ").to_owned()
}

use jchomp_engine::duration::parse_move_time;

/// Checks a bot spec locally and returns it in its canonical form.
pub(crate) fn parse_bot(s: &str) -> Result<String, SpecError> {
    BotSpec::parse(s).map(|spec| spec.to_string())
}

/// A `--name` the server would refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--name must be 1–{MAX_NAME} characters without control characters, got {0:?}")]
pub(crate) struct NameError(pub String);

/// The display name: the `--name` flag (checked as the server would: 1–32 characters after
/// trimming, no control characters), else `$USER` (cut to fit), else `player`.
pub(crate) fn display_name(flag: Option<&str>) -> Result<String, NameError> {
    if let Some(name) = flag {
        return check_name(name)
            .map(str::to_owned)
            .map_err(|_| NameError(name.trim().to_owned()));
    }
    let user: String = std::env::var("USER")
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect();
    let user = user.trim();
    Ok(if user.is_empty() {
        "player".to_owned()
    } else {
        user.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_takes_board_flags_move_time_and_bots() {
        let cli = Cli::try_parse_from([
            "jchomp",
            "--server",
            "ws://h:1/ws",
            "create",
            "--size",
            "5x6",
            "--eat",
            "1x2",
            "--poison",
            "4,5",
            "--players",
            "3",
            "--move-time",
            "20s",
            "--bot",
            "greedy",
            "--bot",
            "level:2",
        ])
        .unwrap();
        assert_eq!(cli.server, "ws://h:1/ws");
        let Some(Command::Create(args)) = cli.command else {
            panic!("not create");
        };
        assert_eq!(args.bots, vec!["greedy", "level:2"]);
        let c = args.config_json().unwrap();
        assert_eq!((c.rows, c.cols, c.players, c.eat), (5, 6, 3, Some([1, 2])));
        assert_eq!(c.poison, vec![[4, 5]]);
        assert_eq!(c.move_time_ms, Some(20_000));
    }

    #[test]
    fn bad_bot_specs_and_times_are_refused_with_words() {
        let e = Cli::try_parse_from(["jchomp", "create", "--bot", "wizard"]).unwrap_err();
        assert!(e.to_string().contains("valid forms"), "{e}");
        assert_eq!(parse_move_time("1500ms"), Ok(1500));
        assert_eq!(parse_move_time("2m"), Ok(120_000));
        assert_eq!(parse_move_time("7"), Ok(7000));
        assert!(parse_move_time("soon").is_err());
        assert!(parse_move_time("0").is_err());
    }

    #[test]
    fn the_lobby_form_uses_the_same_flags() {
        let args = CreateArgs::parse_form(CreateArgs::form_default()).unwrap();
        assert_eq!(args.config_json().unwrap().rows, 6);
        let args = CreateArgs::parse_form("--size 8x9 --bot random --move-time 10").unwrap();
        assert_eq!(args.bots, vec!["random"]);
        let err = CreateArgs::parse_form("--size 3x9")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "--size must be 4–15 rows by 4–15 columns, got 3x9");
        // Classic bars are 1–15 each way, at least two cells: the standard 3×5 among them.
        let classic = CreateArgs::parse_form("--variant classic --size 3x5").unwrap();
        let config = classic.config_json().unwrap();
        assert_eq!((config.rows, config.cols), (3, 5));
        let err = CreateArgs::parse_form("--variant classic --size 1x1")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--size 1x1 is the poison alone; give at least 2 cells, such as 1x2 or 2x1"
        );
        let err = CreateArgs::parse_form("--bot random --bot greedy")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "2 bots cannot fit: a 2-player room has 1 free seat besides yours"
        );
        assert!(CreateArgs::parse_form("--players 3 --bot random --bot greedy").is_ok());
        let err = CreateArgs::parse_form("--colour red")
            .unwrap_err()
            .to_string();
        assert!(err.contains("--colour"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn rooms_are_rated_only_when_asked_and_the_account_commands_parse() {
        let rated = CreateArgs::parse_form("--size 4x4 --rated --bot level:1").unwrap();
        assert!(rated.config_json().unwrap().rated);
        let plain = CreateArgs::parse_form(CreateArgs::form_default()).unwrap();
        assert!(!plain.config_json().unwrap().rated);
        let cli = Cli::try_parse_from(["jchomp", "leaderboard", "--bots", "--days", "7"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Leaderboard { bots: true, days: Some(7), json: false, ref category })
                if category == "jchomp:2"
        ));
        let cli = Cli::try_parse_from(["jchomp", "logout", "--everywhere"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Logout { everywhere: true })
        ));
        let cli = Cli::try_parse_from(["jchomp", "login"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Login { name: None })));
        assert!(Cli::try_parse_from(["jchomp", "player"]).is_err());
    }

    #[test]
    fn play_takes_an_optional_preset_bots_and_a_name() {
        let cli = Cli::try_parse_from(["jchomp", "play"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Play {
                preset: None,
                bots: false
            })
        ));
        let cli =
            Cli::try_parse_from(["jchomp", "play", "duel", "--bots", "--name", "ann"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Play { ref preset, bots: true }) if preset.as_deref() == Some("duel")
        ));
        assert_eq!(cli.name.as_deref(), Some("ann"));
        assert!(Cli::try_parse_from(["jchomp", "play", "duel", "blitz"]).is_err());
    }

    #[test]
    fn names_are_checked_like_the_server_does() {
        assert_eq!(display_name(Some(" ann ")), Ok("ann".to_owned()));
        assert!(display_name(Some("")).is_err());
        assert!(display_name(Some(&"x".repeat(33))).is_err());
        assert!(
            display_name(Some("a\u{1b}b"))
                .unwrap_err()
                .to_string()
                .contains("1–32 characters")
        );
        assert!(display_name(None).is_ok_and(|n| !n.is_empty() && n.chars().count() <= 32));
    }

    #[test]
    fn listings_and_replay_take_json() {
        let cli = Cli::try_parse_from(["jchomp", "replay", "g1", "--json"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Replay { json: true, .. })
        ));
        let cli = Cli::try_parse_from(["jchomp", "games", "--limit", "5"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Games {
                json: false,
                limit: 5
            })
        ));
        let cli = Cli::try_parse_from(["jchomp"]).unwrap();
        assert_eq!(cli.server, DEFAULT_SERVER);
        assert!(cli.command.is_none());
        assert_eq!(cli.classic_db, None);
        let cli = Cli::try_parse_from(["jchomp", "replay", "g1", "--classic-db", "c.db"]).unwrap();
        assert_eq!(cli.classic_db, Some(PathBuf::from("c.db")));
    }
}
