//! [`AccountError`]: why an account request failed, in words a player knows.

use super::names::BadAccountName;
use super::password::{HashError, MAX_PASSWORD, MIN_PASSWORD};
use super::throttle::{ACCOUNT_WINDOW, ADDRESS_WINDOW, Limit};
use crate::store::StoreError;

/// Why an account request failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AccountError {
    /// The name breaks the rule.
    #[error("{0}")]
    BadName(#[from] BadAccountName),
    /// The name is taken (ignoring case).
    #[error("the name {0:?} is taken")]
    NameTaken(String),
    /// The new password is too short or too long.
    #[error(
        "a password must be at least {MIN_PASSWORD} characters and at most {MAX_PASSWORD} bytes"
    )]
    BadPassword,
    /// No such account, or the wrong password (the same answer for both).
    #[error("wrong name or password")]
    BadCredentials,
    /// The token is unknown, revoked or expired.
    #[error("the token is unknown, revoked or expired")]
    BadToken,
    /// A bot's token was used where a person's session is needed.
    #[error("only a person's session may do that, not a bot's token")]
    NotAPerson,
    /// The bot is not the session holder's.
    #[error("you own no bot account named {0:?}")]
    NotYourBot(String),
    /// Too many attempts.
    #[error("{}", throttle_message(*.0))]
    Throttled(Limit),
    /// Password hashing is busy or failed.
    #[error("{0}")]
    Hashing(#[from] HashError),
    /// The store failed.
    #[error("the account store failed: {0}")]
    Store(#[from] StoreError),
}

/// The words for a throttled attempt.
fn throttle_message(limit: Limit) -> String {
    match limit {
        Limit::Account => format!(
            "too many failed logins for this account; try again within {} minutes",
            ACCOUNT_WINDOW.as_secs() / 60
        ),
        Limit::Address => format!(
            "too many login attempts from your address; try again within {} seconds",
            ADDRESS_WINDOW.as_secs()
        ),
    }
}
