//! [`Accounts`]: registration, login, sessions, bot accounts and their API tokens, on an
//! [`AccountStore`] (the embedded store, or PostgreSQL when finished games go there). Passwords are hashed with Argon2id off the
//! async workers ([`password`]), logins are throttled per account and per address
//! ([`throttle`]), names follow one rule ([`names`]), and tokens are kept only as hashes.
//! Profiles and leaderboards are read here too ([`board`]).

pub(crate) mod board;
mod error;
pub(crate) mod names;
pub(crate) mod password;
#[cfg(test)]
mod tests;
pub(crate) mod throttle;

pub(crate) use error::AccountError;

use crate::clock::now_ms;
use crate::game::token::{new_token, token_hash};
use crate::store::AccountStore;
use crate::store::accounts::{Account, AccountKind, Token, TokenKind};
use names::{check_account_name, key_of};
use password::{Hasher, MAX_PASSWORD, MIN_PASSWORD};
use std::sync::Arc;
use std::time::Duration;
use throttle::{Limit, Throttle};

/// The built-in levels, which have accounts of their own on every server.
pub(crate) const BUILT_IN: [&str; 7] = [
    "level:1", "level:2", "level:3", "level:4", "level:5", "random", "greedy",
];

/// Who a token or password proved the holder to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The account's name as registered.
    pub name: String,
    /// Person, bot or built-in level.
    pub kind: AccountKind,
}

/// A new session or API token, shown to its holder once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issued {
    /// The account's name as registered.
    pub name: String,
    /// The secret token.
    pub token: String,
    /// When it stops working (milliseconds since the epoch); none: until revoked.
    pub expires_ms: Option<u64>,
}

/// The server's accounts.
#[derive(Debug, Clone)]
pub(crate) struct Accounts {
    store: AccountStore,
    hasher: Hasher,
    throttle: Arc<Throttle>,
    session_ttl: Duration,
}

impl Accounts {
    /// The accounts in `store`, sessions lasting `session_ttl`.
    /// The login throttle is shared with every node when the accounts are in PostgreSQL.
    pub(crate) fn new(store: AccountStore, session_ttl: Duration) -> Self {
        let throttle = match &store {
            AccountStore::Embedded(_) => Throttle::default(),
            AccountStore::Postgres(pg) => Throttle::Shared(pg.clone()),
        };
        Accounts {
            store,
            hasher: Hasher::default(),
            throttle: Arc::new(throttle),
            session_ttl,
        }
    }

    /// Gives every built-in level its account, if it has none yet (nodes starting together
    /// may both ask: each account is made once).
    pub(crate) async fn ensure_built_ins(&self) -> Result<(), AccountError> {
        for name in BUILT_IN {
            let level = account(name, AccountKind::BuiltIn, None, None);
            self.store.create(name, &level).await?;
        }
        Ok(())
    }

    /// Registers a person and logs them in.
    pub(crate) async fn register(
        &self,
        name: &str,
        password: String,
        address: &str,
    ) -> Result<Issued, AccountError> {
        check_account_name(name)?;
        check_password(&password)?;
        let key = key_of(name);
        self.throttle
            .attempt(&key, address)
            .await?
            .map_err(throttled)?;
        let hash = self.hasher.hash(password).await?;
        let new = account(name, AccountKind::Person, None, Some(hash));
        if !self.store.create(&key, &new).await? {
            return Err(AccountError::NameTaken(name.to_string()));
        }
        tracing::info!(account = %key, "account registered");
        self.issue(key, name.to_string(), TokenKind::Session).await
    }

    /// Logs a person in with their password.
    pub(crate) async fn login(
        &self,
        name: &str,
        password: String,
        address: &str,
    ) -> Result<Issued, AccountError> {
        let key = key_of(name);
        self.throttle
            .attempt(&key, address)
            .await?
            .map_err(throttled)?;
        let found = self.account(&key).await?;
        let hash = found
            .as_ref()
            .filter(|a| a.kind == AccountKind::Person && !a.deleted)
            .and_then(|a| a.password.clone());
        if password.len() > MAX_PASSWORD || !self.hasher.verify(password, hash).await? {
            self.throttle.failed(&key).await?;
            return Err(AccountError::BadCredentials);
        }
        self.throttle.succeeded(&key).await?;
        let name = found.map_or_else(|| name.to_string(), |a| a.name);
        self.issue(key, name, TokenKind::Session).await
    }

    /// Who holds `token` (a session or a bot's API token), if it is valid and unexpired.
    pub(crate) async fn authenticate(&self, token: &str) -> Result<Identity, AccountError> {
        let (_, key, _) = self.token(token).await?;
        let account = self
            .account(&key)
            .await?
            .filter(|a| !a.deleted)
            .ok_or(AccountError::BadToken)?;
        Ok(Identity {
            name: account.name,
            kind: account.kind,
        })
    }

    /// Ends the session `token`.
    pub(crate) async fn logout(&self, token: &str) -> Result<(), AccountError> {
        let (hash, _, _) = self.token(token).await?;
        self.store.revoke(&hash).await?;
        Ok(())
    }

    /// Ends every session of the account holding `token` (its bots' tokens stay).
    pub(crate) async fn logout_everywhere(&self, token: &str) -> Result<usize, AccountError> {
        let key = self.person(token).await?.0;
        Ok(self
            .store
            .revoke_all(&key, Some(TokenKind::Session))
            .await?)
    }

    /// Changes the password of the account holding session `token`, after checking the old
    /// one; every session is ended and a new one is returned.
    pub(crate) async fn change_password(
        &self,
        token: &str,
        old: String,
        new: String,
    ) -> Result<Issued, AccountError> {
        check_password(&new)?;
        let (key, mut account) = self.person(token).await?;
        if !self.hasher.verify(old, account.password.clone()).await? {
            self.throttle.failed(&key).await?;
            return Err(AccountError::BadCredentials);
        }
        account.password = Some(self.hasher.hash(new).await?);
        self.store.update(&key, &account).await?;
        self.store
            .revoke_all(&key, Some(TokenKind::Session))
            .await?;
        self.issue(key, account.name, TokenKind::Session).await
    }

    /// Deletes the account holding session `token`, after checking its password: its name
    /// stays (marked deleted) on its games, and every token of it and of its bots ends.
    pub(crate) async fn delete(&self, token: &str, password: String) -> Result<(), AccountError> {
        let (key, account) = self.person(token).await?;
        if !self.hasher.verify(password, account.password).await? {
            self.throttle.failed(&key).await?;
            return Err(AccountError::BadCredentials);
        }
        for bot in self.store.bots_of(&key).await? {
            self.store.delete(&bot).await?;
        }
        Ok(self.store.delete(&key).await?)
    }

    /// Makes a bot account owned by the holder of session `token`; returns its API token.
    pub(crate) async fn create_bot(&self, token: &str, name: &str) -> Result<Issued, AccountError> {
        check_account_name(name)?;
        let (owner, _) = self.person(token).await?;
        let key = key_of(name);
        let new = account(name, AccountKind::Bot, Some(owner), None);
        if !self.store.create(&key, &new).await? {
            return Err(AccountError::NameTaken(name.to_string()));
        }
        self.issue(key, name.to_string(), TokenKind::Bot).await
    }

    /// Revokes every API token of a bot the holder of session `token` owns and returns a new
    /// one.
    pub(crate) async fn renew_bot_token(
        &self,
        token: &str,
        bot: &str,
    ) -> Result<Issued, AccountError> {
        let (owner, _) = self.person(token).await?;
        let key = key_of(bot);
        let found = self.account(&key).await?;
        let Some(account) = found.filter(|a| a.owner.as_deref() == Some(owner.as_str())) else {
            return Err(AccountError::NotYourBot(bot.to_string()));
        };
        self.store.revoke_all(&key, Some(TokenKind::Bot)).await?;
        self.issue(key, account.name, TokenKind::Bot).await
    }

    /// The account under `key`.
    pub(super) async fn account(&self, key: &str) -> Result<Option<Account>, AccountError> {
        Ok(self.store.account(key).await?)
    }

    /// The hash, account key and kind of a valid, unexpired token.
    async fn token(&self, token: &str) -> Result<(String, String, TokenKind), AccountError> {
        let hash = token_hash(token);
        let found = self.store.token(&hash).await?;
        match found {
            Some(t) if t.expires_ms.is_none_or(|e| now_ms() < e) => Ok((hash, t.account, t.kind)),
            _ => Err(AccountError::BadToken),
        }
    }

    /// The key and account of the person whose session `token` is.
    async fn person(&self, token: &str) -> Result<(String, Account), AccountError> {
        let (_, key, kind) = self.token(token).await?;
        if kind != TokenKind::Session {
            return Err(AccountError::NotAPerson);
        }
        let account = self.account(&key).await?.filter(|a| !a.deleted);
        account.map(|a| (key, a)).ok_or(AccountError::BadToken)
    }

    /// Stores and returns a new token of `kind` for the account `key`.
    async fn issue(
        &self,
        key: String,
        name: String,
        kind: TokenKind,
    ) -> Result<Issued, AccountError> {
        // The account's expired sessions go as a new token comes, so they never pile up.
        let now = now_ms();
        self.store.forget_expired(&key, now).await?;
        let token = new_token();
        let expires_ms = (kind == TokenKind::Session)
            .then(|| now.saturating_add(self.session_ttl.as_millis() as u64));
        let stored = Token {
            account: key,
            kind,
            expires_ms,
        };
        self.store.add_token(&token_hash(&token), &stored).await?;
        Ok(Issued {
            name,
            token,
            expires_ms,
        })
    }
}

/// A new account record.
fn account(
    name: &str,
    kind: AccountKind,
    owner: Option<String>,
    password: Option<String>,
) -> Account {
    Account {
        name: name.to_string(),
        kind,
        owner,
        password,
        created_ms: now_ms(),
        deleted: false,
    }
}

/// Checks a new password's length.
fn check_password(password: &str) -> Result<(), AccountError> {
    let len = password.chars().count();
    if len < MIN_PASSWORD || password.len() > MAX_PASSWORD {
        return Err(AccountError::BadPassword);
    }
    Ok(())
}

/// The error for a throttled attempt.
fn throttled(limit: Limit) -> AccountError {
    AccountError::Throttled(limit)
}
