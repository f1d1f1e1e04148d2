//! `jchomp`, the JChomp terminal client: its command line, the interactive client and the
//! read-only subcommands.
//!
//! # `jchomp`
//!
//! `jchomp [--server ADDRESS] [--name NAME]` opens the lobby (default server
//! `ws://127.0.0.1:7777/ws`; `JCHOMP_SERVER` when the flag is absent; `host:port`, `ws(s)://`
//! and `http(s)://` addresses are read by `jchomp_protocol::server_url`). Subcommands go straight to a room or print something:
//! `create` (board flags `--size 6x7 --eat 1x2 --poison 0,0 --players 2`, `--variant
//! classic|breaks`, `--play normal`, `--no-square-bites`; `--move-time 30s`,
//! `--bot SPEC` repeated), `play [PRESET] [--bots]` (quick pairing: without a preset it lists
//! them; with one it waits in its pool until the server seats the player, Esc or `q` stops
//! waiting), `join ROOM`, `watch ROOM`, `resume TOKEN`, and the read-only
//! `rooms`, `games` and `replay GAME` (each with `--json`; `replay` steps through the game on a
//! terminal and prints every step otherwise), `tournaments` (`--json` too) and `tournament ID`
//! (a tournament the server runs, followed until it has finished: standings and a round robin's
//! crosstable, redrawn on a terminal, a line per change and the final tables otherwise). Accounts: `register [NAME]`, `login [NAME]` (the
//! password from `JCHOMP_PASSWORD`, standard input, or a prompt without echo) and `logout
//! [--everywhere]`; the session kept (`session`) is sent as `authenticate` on every connection,
//! so `create --rated` works; `leaderboard` and `player NAME` print ratings from the HTTP API.
//!
//! Keys — lobby: ↑/↓ (j/k) select, Enter join, `w` watch, `c` create (the `create` flags),
//! `i` join by id, `g` recent games (Enter replays one), `r` refresh, `p` play now (the
//! server's quick-pairing presets, one digit each; `b` allows bots; then the wait, which Esc
//! ends). Game: arrows or hjkl
//! move the cursor (it starts on a cell that does not eat poison; a board larger than the
//! terminal scrolls to follow it), whose rectangle shows what the selection would eat (`[ ]`)
//! or why it is refused (`< >`); Enter or space eats (a selection that eats poison asks for a
//! second Enter), digits start typed coordinates `ROW,COL`, `?` toggles
//! the per-move annotations (two-player rooms only), `b` adds a bot (host, while waiting),
//! `L` leaves (twice in a game in play; Esc leaves a watched room); after a game, `r` asks for a
//! rematch in the same room (the panel says who has asked and whom it waits for; it starts once
//! every person has, bots agree), `n` opens a new room on the same board and Esc goes back to the
//! lobby. The result names the loser and
//! the winners; a dropped seat counts down the time it is held for a resume, and the move clock runs from the server's time left; a terminal 30 rows or taller also lists
//! the moves. Replay: ←/→ step, Home/End, `?` annotations, Esc back. `q` or Ctrl-C quits everywhere; a dropped connection is
//! resumed by itself, and quitting a game in play prints the `jchomp resume` command. Seat
//! tokens are kept in the user's state directory (`saved_seats`), so `join` and the lobby
//! offer a seat back after the client died.
//! `NO_COLOR` turns colours off; every cell kind keeps its own symbol.
//!
//! Annotations are those of the Chomp web app this follows: each selectable cell shows the
//! half-moves (plies) to the end if that selection is made, under optimal play — `+4` a win in
//! 4 (even), `-7` a loss the mover can delay 7 at the longest (odd), `=` a tie, `?` not proven
//! in time; a legend line says so. The standard classic game (two players, poison at 0,0)
//! takes them from the classic database (`--classic-db`, built in the background on first
//! need), everything else from the engine's analysis under a time cap. A replay marks `?!` each
//! move that threw away a win or a tie.
//!
//! Code map. Public, for the binary and the tests: [`cli`] (the command line), [`run`] (the loop
//! and the subcommands), [`app`] (the client as a state machine: keys and messages in, messages
//! and screens out), [`render_game`] (the game screen, pure), [`explain`] (results and refusals
//! in words), [`style`] (styled text), [`connection`] (the WebSocket). Inside the crate:
//! `room_state` (a room kept by the shared rules), `render_lobby`, `render_pairing` and
//! `render_hints` (the other screens), `terminal` (raw mode, colours, the ratatui terminal), `input` (keys to actions),
//! `signals` (SIGTERM/SIGHUP/SIGINT), `saved_seats` (seat tokens), `commands` (`rooms`,
//! `games`, `replay`), `tournaments` (`tournaments`, `tournament ID`), `list_table` (their
//! tables), `hint` and `classic_db` (the annotations),
//! `review` (a replay's blunders), `user_dirs` (the XDG directories and private files),
//! `account` (register, login, logout, authenticate), `session` (the kept session),
//! `password` (reading it), `http_api` (the HTTP API) and `ratings_table` (leaderboards and
//! profiles).

mod account;
pub mod app;
mod classic_db;
pub mod cli;
mod commands;
pub use jchomp_protocol::connection;
pub mod explain;
#[cfg(test)]
mod fixtures;
mod hint;
mod http_api;
mod input;
mod list_table;
mod password;
mod ratings_table;
pub mod render_game;
mod render_hints;
mod render_lobby;
mod render_pairing;
mod review;
mod room_state;
pub mod run;
mod saved_seats;
mod session;
mod signals;
pub mod style;
mod terminal;
mod tournaments;
mod user_dirs;
