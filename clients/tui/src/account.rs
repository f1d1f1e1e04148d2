//! Accounts from the terminal: `jchomp register`, `jchomp login` and `jchomp logout` over the
//! WebSocket, and [`authenticate`], which every connection of the client sends first with the
//! session kept in [`SessionStore`] (a session the server no longer takes is forgotten, with a
//! message saying so).

use crate::cli::command_line;
use crate::commands::CommandError;
use crate::connection::{Connection, ConnectionError, ServerError};
use crate::password::read_password;
use crate::session::{SavedSession, SessionStore};
use jchomp_protocol::wire::{ClientMessage, ErrorCode, ServerMessage};
use std::io::Write;

/// Who a connection acts as after [`authenticate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Login {
    /// No session is kept for the server.
    Guest,
    /// The kept session was taken: the account's name.
    Account(String),
    /// The kept session has ended (expired, revoked, or the account deleted); it was
    /// forgotten. The message says so in words.
    Ended(String),
}

/// The session store, or an error saying why there is none.
fn store() -> Result<SessionStore, CommandError> {
    SessionStore::user().ok_or(CommandError::NoStateDir)
}

/// The session kept for `url`, if any (none when no state directory is known).
pub(crate) fn kept_session(url: &str) -> Result<Option<SavedSession>, CommandError> {
    match SessionStore::user() {
        Some(store) => Ok(store.get(url).map_err(CommandError::Session)?),
        None => Ok(None),
    }
}

/// Sends `authenticate` with the session kept for `url`, if there is one, and waits for the
/// answer. A session the server refuses is removed from the file.
pub(crate) async fn authenticate(conn: &mut Connection, url: &str) -> Result<Login, CommandError> {
    let Some(session) = kept_session(url)? else {
        return Ok(Login::Guest);
    };
    match send_token(conn, &session.token).await? {
        Ok(name) => Ok(Login::Account(name)),
        Err(e) if e.code == ErrorCode::BadToken => {
            store()?.remove(url).map_err(CommandError::Session)?;
            Ok(Login::Ended(ended_words(url, &session.name)))
        }
        Err(e) => Err(e.into()),
    }
}

/// Sends `authenticate` with `token`; the account's name, or the server's refusal.
pub(crate) async fn send_token(
    conn: &mut Connection,
    token: &str,
) -> Result<Result<String, ServerError>, ConnectionError> {
    let msg = ClientMessage::Authenticate {
        token: token.to_owned(),
    };
    conn.request(&msg, |m| match m {
        ServerMessage::Account { name, .. } => Some(name),
        _ => None,
    })
    .await
}

/// What the user is told when the kept session of `name` has ended.
fn ended_words(url: &str, name: &str) -> String {
    format!(
        "the session of {name} on this server has expired or was revoked, and is forgotten; \
         log in again with `{}`",
        command_line(url, "login")
    )
}

/// `jchomp register NAME` (with `register`) or `jchomp login NAME`: reads the password, sends
/// it, and keeps the session the server gives.
pub(crate) async fn log_in(
    url: &str,
    name: &str,
    register: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let store = store()?;
    let password = read_password(register)?;
    let msg = if register {
        ClientMessage::Register {
            name: name.to_owned(),
            password,
        }
    } else {
        ClientMessage::Login {
            name: name.to_owned(),
            password,
        }
    };
    let mut conn = Connection::connect(url).await?;
    let answer = conn
        .request(&msg, |m| match m {
            ServerMessage::Account {
                name,
                token,
                expires_ms,
                ..
            } => Some((name, token, expires_ms)),
            _ => None,
        })
        .await?;
    conn.close().await;
    let (name, Some(token), expires_ms) = answer? else {
        return Err(CommandError::NoToken);
    };
    store
        .put(SavedSession {
            server: url.to_owned(),
            name: name.clone(),
            token,
            expires_ms: expires_ms.unwrap_or(0),
        })
        .map_err(CommandError::Session)?;
    let done = if register { "Registered" } else { "Logged in" };
    let until = expires_ms
        .map(|ms| format!(" until {} UTC", crate::explain::utc_minutes(ms)))
        .unwrap_or_default();
    writeln!(
        out,
        "{done} as {name}{until}; the session is kept in {}.",
        store.path().display()
    )?;
    Ok(())
}

/// `jchomp logout [--everywhere]`: ends the kept session on the server (every session of the
/// account with `everywhere`) and forgets it. The file stays when the server cannot be
/// reached, so that the session can still be ended.
pub(crate) async fn log_out(
    url: &str,
    everywhere: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let store = store()?;
    let Some(session) = store.get(url).map_err(CommandError::Session)? else {
        writeln!(out, "Not logged in on this server.")?;
        return Ok(());
    };
    let mut conn = Connection::connect(url).await?;
    if let Err(refused) = send_token(&mut conn, &session.token).await? {
        conn.close().await;
        if refused.code != ErrorCode::BadToken {
            return Err(refused.into());
        }
        store.remove(url).map_err(CommandError::Session)?;
        writeln!(
            out,
            "The session of {} had already ended; it is forgotten.",
            session.name
        )?;
        return Ok(());
    }
    let sessions = conn
        .request(&ClientMessage::Logout { everywhere }, |m| match m {
            ServerMessage::LoggedOut { sessions } => Some(sessions),
            _ => None,
        })
        .await??;
    conn.close().await;
    store.remove(url).map_err(CommandError::Session)?;
    let ended = match sessions {
        1 => "1 session ended".to_owned(),
        n => format!("{n} sessions ended"),
    };
    writeln!(out, "Logged out {} ({ended}).", session.name)?;
    Ok(())
}
