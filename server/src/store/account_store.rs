//! [`AccountStore`]: where the server's accounts, tokens and ratings are, as one async
//! interface over the two places they can be: the embedded store (redb, blocking, run on the
//! blocking pool) on a single node, or PostgreSQL (async) when finished games go there, so that
//! every node of a cluster shares them.

use super::accounts::{Account, Token, TokenKind};
use super::db::Store;
use super::error::StoreError;
use super::postgres::PgRecords;
use crate::ratings::{Point, Rating};
use std::sync::Arc;

/// Where accounts, tokens and ratings are kept. Every change is durable when it returns.
#[derive(Clone, Debug)]
pub(crate) enum AccountStore {
    /// In the embedded database, beside the games (no `--database`).
    Embedded(Arc<Store>),
    /// In PostgreSQL, beside the finished games (`--database`).
    Postgres(PgRecords),
}

/// Runs `work` on the embedded store on a blocking thread.
async fn blocking<T: Send + 'static>(
    store: &Arc<Store>,
    work: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || work(&store)).await?
}

impl AccountStore {
    /// Stores a new account under `key`; false (nothing changed) if the key is taken.
    pub(crate) async fn create(&self, key: &str, account: &Account) -> Result<bool, StoreError> {
        match self {
            Self::Embedded(s) => {
                let (key, account) = (key.to_string(), account.clone());
                blocking(s, move |s| s.create(&key, &account)).await
            }
            Self::Postgres(pg) => Ok(pg.create(key, account).await?),
        }
    }

    /// Removes the tokens of account `key` that expired at or before `now_ms`.
    pub(crate) async fn forget_expired(&self, key: &str, now_ms: u64) -> Result<usize, StoreError> {
        match self {
            Self::Embedded(s) => {
                let key = key.to_string();
                blocking(s, move |s| s.forget_expired(&key, now_ms)).await
            }
            Self::Postgres(pg) => Ok(pg.forget_expired(key, now_ms).await?),
        }
    }

    /// The account under `key`.
    pub(crate) async fn account(&self, key: &str) -> Result<Option<Account>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let key = key.to_string();
                blocking(s, move |s| s.account(&key)).await
            }
            Self::Postgres(pg) => Ok(pg.account(key).await?),
        }
    }

    /// Replaces the account under `key` (which must exist).
    pub(crate) async fn update(&self, key: &str, account: &Account) -> Result<(), StoreError> {
        match self {
            Self::Embedded(s) => {
                let (key, account) = (key.to_string(), account.clone());
                blocking(s, move |s| s.update(&key, &account)).await
            }
            Self::Postgres(pg) => Ok(pg.update(key, account).await?),
        }
    }

    /// Every account, by key.
    pub(crate) async fn accounts(&self) -> Result<Vec<(String, Account)>, StoreError> {
        match self {
            Self::Embedded(s) => blocking(s, Store::accounts).await,
            Self::Postgres(pg) => Ok(pg.accounts().await?),
        }
    }

    /// The keys of the bot accounts `owner` made.
    pub(crate) async fn bots_of(&self, owner: &str) -> Result<Vec<String>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let owner = owner.to_string();
                blocking(s, move |s| s.bots_of(&owner)).await
            }
            Self::Postgres(pg) => Ok(pg.bots_of(owner).await?),
        }
    }

    /// Stores a token under its hash.
    pub(crate) async fn add_token(&self, hash: &str, token: &Token) -> Result<(), StoreError> {
        match self {
            Self::Embedded(s) => {
                let (hash, token) = (hash.to_string(), token.clone());
                blocking(s, move |s| s.add_token(&hash, &token)).await
            }
            Self::Postgres(pg) => Ok(pg.add_token(hash, token).await?),
        }
    }

    /// The token stored under `hash`.
    pub(crate) async fn token(&self, hash: &str) -> Result<Option<Token>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let hash = hash.to_string();
                blocking(s, move |s| s.token(&hash)).await
            }
            Self::Postgres(pg) => Ok(pg.token(hash).await?),
        }
    }

    /// Removes the token under `hash`; false if there was none.
    pub(crate) async fn revoke(&self, hash: &str) -> Result<bool, StoreError> {
        match self {
            Self::Embedded(s) => {
                let hash = hash.to_string();
                blocking(s, move |s| s.revoke(&hash)).await
            }
            Self::Postgres(pg) => Ok(pg.revoke(hash).await?),
        }
    }

    /// Removes every token of `key` of the given kind (every kind if `None`); returns how many.
    pub(crate) async fn revoke_all(
        &self,
        key: &str,
        kind: Option<TokenKind>,
    ) -> Result<usize, StoreError> {
        match self {
            Self::Embedded(s) => {
                let key = key.to_string();
                blocking(s, move |s| s.revoke_all(&key, kind)).await
            }
            Self::Postgres(pg) => Ok(pg.revoke_all(key, kind).await?),
        }
    }

    /// Marks the account deleted, forgets its password and revokes its tokens, in one change.
    pub(crate) async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self {
            Self::Embedded(s) => {
                let key = key.to_string();
                blocking(s, move |s| s.delete(&key)).await
            }
            Self::Postgres(pg) => Ok(pg.delete(key).await?),
        }
    }

    /// Every rating of the account `key`, by category.
    pub(crate) async fn ratings_of(&self, key: &str) -> Result<Vec<(String, Rating)>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let key = key.to_string();
                blocking(s, move |s| s.ratings_of(&key)).await
            }
            Self::Postgres(pg) => Ok(pg.ratings_of(key).await?),
        }
    }

    /// The history of `key`'s rating in `category`, oldest first.
    pub(crate) async fn history(
        &self,
        key: &str,
        category: &str,
    ) -> Result<Vec<Point>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let (key, category) = (key.to_string(), category.to_string());
                blocking(s, move |s| s.history(&key, &category)).await
            }
            Self::Postgres(pg) => Ok(pg.history(key, category).await?),
        }
    }

    /// Every account's rating in `category`, by account key.
    pub(crate) async fn ratings_in(
        &self,
        category: &str,
    ) -> Result<Vec<(String, Rating)>, StoreError> {
        match self {
            Self::Embedded(s) => {
                let category = category.to_string();
                blocking(s, move |s| s.ratings_in(&category)).await
            }
            Self::Postgres(pg) => Ok(pg.ratings_in(category).await?),
        }
    }
}
