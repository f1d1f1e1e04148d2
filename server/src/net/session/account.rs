//! The account requests of one connection (`register`, `login`, `authenticate`, `logout`,
//! `change_password`, `delete_account`, `create_bot`, `renew_bot_token`), and who the
//! connection acts as once one succeeds.

use super::Session;
use crate::accounts::{AccountError, BUILT_IN, Identity, Issued};
use crate::store::accounts::AccountKind;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, ServerMessage};

/// The account a connection acts as.
pub(crate) struct Login {
    /// Who.
    pub identity: Identity,
    /// The token it proved it with (a session's, or a bot's API token).
    token: String,
}

impl Session {
    /// Handles an account request.
    pub(super) async fn account_request(&mut self, msg: ClientMessage) {
        let needs_login = !matches!(
            msg,
            ClientMessage::Register { .. }
                | ClientMessage::Login { .. }
                | ClientMessage::Authenticate { .. }
        );
        if needs_login && self.login.is_none() {
            let message = "log in or authenticate first".to_string();
            return self.error(ErrorCode::Forbidden, message);
        }
        let accounts = self.ctx.accounts.clone();
        let answer = match msg {
            ClientMessage::Register { name, password } => {
                let issued = accounts.register(&name, password, &self.address).await;
                self.issued(issued, false)
            }
            ClientMessage::Login { name, password } => {
                let issued = accounts.login(&name, password, &self.address).await;
                self.issued(issued, false)
            }
            ClientMessage::Authenticate { token } => self.authenticate(token).await,
            ClientMessage::Logout { everywhere } => self.logout(everywhere).await,
            ClientMessage::ChangePassword { old, new } => {
                let token = self.token();
                let issued = accounts.change_password(&token, old, new).await;
                self.issued(issued, false)
            }
            ClientMessage::DeleteAccount { password } => {
                let token = self.token();
                accounts.delete(&token, password).await.map(|()| {
                    self.login = None;
                    self.peer.set_bot_account(false);
                    ServerMessage::LoggedOut { sessions: 1 }
                })
            }
            ClientMessage::CreateBot { name } => {
                let issued = accounts.create_bot(&self.token(), &name).await;
                issued.map(bot_token)
            }
            ClientMessage::RenewBotToken { bot } => {
                let issued = accounts.renew_bot_token(&self.token(), &bot).await;
                issued.map(bot_token)
            }
            _ => return,
        };
        match answer {
            Ok(msg) => self.reply(&msg),
            Err(e) => self.account_error(e),
        }
    }

    /// The name a seat taken now goes by: the account's, when the connection acts as one;
    /// a guest's typed name otherwise.
    pub(super) fn seat_name(&self, typed: String) -> String {
        self.login
            .as_ref()
            .map_or(typed, |l| l.identity.name.clone())
    }

    /// Whether the connection may sit in a rated room (`what`, in words); a guest is told why
    /// not.
    pub(super) fn may_sit_rated(&self, what: &str) -> bool {
        if self.login.is_none() {
            let message = format!(
                "{what} is rated: only players with accounts may sit; log in or authenticate first"
            );
            self.error(ErrorCode::Forbidden, message);
        }
        self.login.is_some()
    }

    /// Whether the bot `spec` may be added to the connection's room: in a rated room only the
    /// built-in levels, which have accounts, may sit; the client is told why not. A spec that
    /// does not parse is left to the room to refuse.
    pub(super) fn may_add_bot(&self, spec: Option<&str>) -> bool {
        let Some(member) = &self.member else {
            return true;
        };
        if !self.ctx.lobby.is_rated(&member.room) {
            return true;
        }
        let spec = spec.unwrap_or(crate::game::room::DEFAULT_SPEC);
        self.built_in_bot(&format!("room {}", member.room), spec)
    }

    /// Whether `spec` names a built-in level (which has an account), as a rated room (`what`,
    /// in words) needs; the client is told why not. A seeded spec is not one: the levels' games
    /// are rated with the server's own seeds. A spec that does not parse is left to the room to
    /// refuse.
    pub(super) fn built_in_bot(&self, what: &str, spec: &str) -> bool {
        let seeded = spec.contains(",seed=");
        let name = match jchomp_engine::BotSpec::parse(spec) {
            Ok(s) => s.to_string(),
            Err(_) if seeded => spec.to_string(),
            Err(_) => return true,
        };
        if BUILT_IN.contains(&name.as_str()) {
            return true;
        }
        let message = format!(
            "{what} is rated: only the built-in levels ({}) may be added, without a seed, not {name}",
            BUILT_IN.join(", ")
        );
        self.error(ErrorCode::Forbidden, message);
        false
    }

    /// Acts as the holder of `token`.
    async fn authenticate(&mut self, token: String) -> Result<ServerMessage, AccountError> {
        let identity = self.ctx.accounts.authenticate(&token).await?;
        let msg = account_message(&identity, None);
        self.peer
            .set_bot_account(identity.kind != AccountKind::Person);
        self.login = Some(Login { identity, token });
        Ok(msg)
    }

    /// Ends this connection's session (or every session of its account).
    async fn logout(&mut self, everywhere: bool) -> Result<ServerMessage, AccountError> {
        let token = self.token();
        let sessions = if everywhere {
            self.ctx.accounts.logout_everywhere(&token).await?
        } else {
            self.ctx.accounts.logout(&token).await?;
            1
        };
        self.login = None;
        self.peer.set_bot_account(false);
        Ok(ServerMessage::LoggedOut {
            sessions: u32::try_from(sessions).unwrap_or(u32::MAX),
        })
    }

    /// Acts as the holder of a new session, and says so.
    fn issued(
        &mut self,
        issued: Result<Issued, AccountError>,
        bot: bool,
    ) -> Result<ServerMessage, AccountError> {
        let issued = issued?;
        let identity = Identity {
            name: issued.name.clone(),
            kind: if bot {
                AccountKind::Bot
            } else {
                AccountKind::Person
            },
        };
        let msg = account_message(&identity, Some(&issued));
        self.peer.set_bot_account(bot);
        self.login = Some(Login {
            identity,
            token: issued.token,
        });
        Ok(msg)
    }

    /// The connection's token (empty, which no account holds, for a guest).
    fn token(&self) -> String {
        self.login
            .as_ref()
            .map_or_else(String::new, |l| l.token.clone())
    }

    /// Tells the client why an account request failed.
    fn account_error(&self, e: AccountError) {
        let code = match &e {
            AccountError::BadName(_) | AccountError::BadPassword => ErrorCode::BadRequest,
            AccountError::NameTaken(_) => ErrorCode::NameTaken,
            AccountError::BadCredentials => ErrorCode::BadCredentials,
            AccountError::BadToken => ErrorCode::BadToken,
            AccountError::NotAPerson | AccountError::NotYourBot(_) => ErrorCode::Forbidden,
            AccountError::Throttled(_) => ErrorCode::TooManyAttempts,
            AccountError::Hashing(crate::accounts::password::HashError::Busy) => {
                ErrorCode::ServerFull
            }
            AccountError::Hashing(_) | AccountError::Store(_) => {
                tracing::error!(error = %e, "an account request failed");
                ErrorCode::Internal
            }
        };
        self.error(code, e.to_string());
    }
}

/// The `account` message for `identity`, with a new session when there is one.
fn account_message(identity: &Identity, issued: Option<&Issued>) -> ServerMessage {
    ServerMessage::Account {
        name: identity.name.clone(),
        bot: identity.kind != AccountKind::Person,
        token: issued.map(|i| i.token.clone()),
        expires_ms: issued.and_then(|i| i.expires_ms),
    }
}

/// The `bot_token` message for a bot's new API token.
fn bot_token(issued: Issued) -> ServerMessage {
    ServerMessage::BotToken {
        bot: issued.name,
        token: issued.token,
    }
}
