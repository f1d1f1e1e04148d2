//! Accounts and their tokens (sessions and bot API tokens): what is stored ([`Account`],
//! [`Token`]) and its redb implementation on [`Store`], blocking (the server reaches it through
//! [`super::AccountStore`], off the async workers). Every change is one redb transaction,
//! fsynced before it returns (the durability of the game records once checkpointed).

use super::db::Store;
use super::error::StoreError;
pub(crate) use super::schema::key_of;
use super::schema::{ACCOUNTS, TOKENS, TOKENS_OF};
use redb::{ReadableDatabase, ReadableTable, WriteTransaction};
use serde::{Deserialize, Serialize};

/// Who an account is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AccountKind {
    /// A person, who logs in with a password.
    Person,
    /// A bot account made by a person; it plays with API tokens.
    Bot,
    /// A level built into the server (`level:3`, `greedy`, …).
    BuiltIn,
}

/// One account as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Account {
    /// The name as registered (its case kept).
    pub name: String,
    /// Person, bot or built-in level.
    pub kind: AccountKind,
    /// A bot account's owner (the owner's key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// A person's password as an Argon2id PHC string; none for bots and deleted accounts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// When it was made, milliseconds since the epoch.
    pub created_ms: u64,
    /// Deleted: its name stays taken (its games keep it), nobody can log in as it.
    #[serde(default)]
    pub deleted: bool,
}

/// What a token lets its holder do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TokenKind {
    /// A login session of a person.
    Session,
    /// A bot account's API token.
    Bot,
}

/// One token as stored (under its hash; the token itself is never stored).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Token {
    /// The account key it belongs to.
    pub account: String,
    /// Session or bot API token.
    pub kind: TokenKind,
    /// When it stops working, milliseconds since the epoch; none: until revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<u64>,
}

/// Removes the tokens of `key` (of `kind`, or all) inside `txn`.
fn revoke_in(
    txn: &WriteTransaction,
    key: &str,
    kind: Option<TokenKind>,
) -> Result<usize, StoreError> {
    remove_in(txn, key, |token| kind.is_none_or(|k| k == token.kind))
}

/// Removes the tokens of account `key` that `doomed` picks (a token whose record is missing
/// is dropped from the index too), in `txn`; returns how many.
fn remove_in(
    txn: &WriteTransaction,
    key: &str,
    doomed: impl Fn(&Token) -> bool,
) -> Result<usize, StoreError> {
    let mut tokens = txn.open_table(TOKENS)?;
    let mut of = txn.open_table(TOKENS_OF)?;
    let mut hashes = Vec::new();
    for entry in of.range((key, "")..)? {
        let (k, _) = entry?;
        let (account, hash) = k.value();
        if account != key {
            break;
        }
        hashes.push(hash.to_string());
    }
    let mut removed = 0;
    for hash in hashes {
        let matches = match tokens.get(hash.as_str())? {
            Some(json) => doomed(&serde_json::from_str(json.value())?),
            None => true,
        };
        if matches {
            tokens.remove(hash.as_str())?;
            of.remove((key, hash.as_str()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Accounts and tokens in redb, each change durable when it returns.
impl Store {
    /// Stores a new account under `key`; false (nothing changed) if the key is taken.
    pub(super) fn create(&self, key: &str, account: &Account) -> Result<bool, StoreError> {
        let txn = self.db.begin_write()?;
        let created = {
            let mut table = txn.open_table(ACCOUNTS)?;
            if table.get(key)?.is_some() {
                false
            } else {
                table.insert(key, serde_json::to_string(account)?.as_str())?;
                true
            }
        };
        txn.commit()?;
        Ok(created)
    }

    /// The account under `key`.
    pub(super) fn account(&self, key: &str) -> Result<Option<Account>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(ACCOUNTS)?;
        match table.get(key)? {
            Some(json) => Ok(Some(serde_json::from_str(json.value())?)),
            None => Ok(None),
        }
    }

    /// Replaces the account under `key` (which must exist).
    pub(super) fn update(&self, key: &str, account: &Account) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        txn.open_table(ACCOUNTS)?
            .insert(key, serde_json::to_string(account)?.as_str())?;
        txn.commit()?;
        Ok(())
    }

    /// Every account, by key.
    pub(super) fn accounts(&self) -> Result<Vec<(String, Account)>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(ACCOUNTS)?;
        let mut out = Vec::new();
        for entry in table.iter()? {
            let (key, json) = entry?;
            out.push((key.value().to_string(), serde_json::from_str(json.value())?));
        }
        Ok(out)
    }

    /// The keys of the bot accounts `owner` made.
    pub(super) fn bots_of(&self, owner: &str) -> Result<Vec<String>, StoreError> {
        Ok(self
            .accounts()?
            .into_iter()
            .filter(|(_, a)| a.owner.as_deref() == Some(owner))
            .map(|(key, _)| key)
            .collect())
    }

    /// Stores a token under its hash.
    pub(super) fn add_token(&self, hash: &str, token: &Token) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        txn.open_table(TOKENS)?
            .insert(hash, serde_json::to_string(token)?.as_str())?;
        txn.open_table(TOKENS_OF)?
            .insert((token.account.as_str(), hash), ())?;
        txn.commit()?;
        Ok(())
    }

    /// The token stored under `hash`.
    pub(super) fn token(&self, hash: &str) -> Result<Option<Token>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(TOKENS)?;
        match table.get(hash)? {
            Some(json) => Ok(Some(serde_json::from_str(json.value())?)),
            None => Ok(None),
        }
    }

    /// Removes the token under `hash`; false if there was none.
    pub(super) fn revoke(&self, hash: &str) -> Result<bool, StoreError> {
        let txn = self.db.begin_write()?;
        let removed = {
            let mut tokens = txn.open_table(TOKENS)?;
            let old = tokens.remove(hash)?.map(|json| json.value().to_string());
            match old {
                Some(json) => {
                    let token: Token = serde_json::from_str(&json)?;
                    txn.open_table(TOKENS_OF)?
                        .remove((token.account.as_str(), hash))?;
                    true
                }
                None => false,
            }
        };
        txn.commit()?;
        Ok(removed)
    }

    /// Removes every token of `key` of the given kind (every kind if `None`); returns how many.
    pub(super) fn revoke_all(
        &self,
        key: &str,
        kind: Option<TokenKind>,
    ) -> Result<usize, StoreError> {
        let txn = self.db.begin_write()?;
        let removed = revoke_in(&txn, key, kind)?;
        txn.commit()?;
        Ok(removed)
    }

    /// Removes the tokens of account `key` that expired at or before `now_ms`; returns how many.
    pub(super) fn forget_expired(&self, key: &str, now_ms: u64) -> Result<usize, StoreError> {
        let txn = self.db.begin_write()?;
        let removed = remove_in(&txn, key, |t| t.expires_ms.is_some_and(|e| e <= now_ms))?;
        txn.commit()?;
        Ok(removed)
    }

    /// Marks the account deleted, forgets its password and revokes its tokens, in one change.
    pub(super) fn delete(&self, key: &str) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(ACCOUNTS)?;
            let old = table.get(key)?.map(|json| json.value().to_string());
            if let Some(json) = old {
                let mut account: Account = serde_json::from_str(&json)?;
                account.deleted = true;
                account.password = None;
                table.insert(key, serde_json::to_string(&account)?.as_str())?;
            }
        }
        revoke_in(&txn, key, None)?;
        txn.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::temp::TempDir;

    fn person(name: &str) -> Account {
        Account {
            name: name.into(),
            kind: AccountKind::Person,
            owner: None,
            password: Some("hash".into()),
            created_ms: 1,
            deleted: false,
        }
    }

    fn session(account: &str) -> Token {
        Token {
            account: account.into(),
            kind: TokenKind::Session,
            expires_ms: Some(10),
        }
    }

    #[test]
    fn a_key_is_taken_once_and_survives_reopening() {
        let dir = tempfile_dir();
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.create("alice", &person("Alice")).unwrap());
            assert!(!store.create("alice", &person("ALICE")).unwrap());
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.account("alice").unwrap().unwrap().name, "Alice");
        assert_eq!(store.account("bob").unwrap(), None);
    }

    #[test]
    fn revoking_all_leaves_other_accounts_and_kinds() {
        let dir = tempfile_dir();
        let store = Store::open(dir.path()).unwrap();
        store.add_token("h1", &session("alice")).unwrap();
        store.add_token("h2", &session("alice")).unwrap();
        let bot = Token {
            kind: TokenKind::Bot,
            ..session("alice")
        };
        store.add_token("h3", &bot).unwrap();
        store.add_token("h4", &session("alicea")).unwrap();
        assert_eq!(
            store.revoke_all("alice", Some(TokenKind::Session)).unwrap(),
            2
        );
        assert_eq!(store.token("h1").unwrap(), None);
        assert_eq!(store.token("h3").unwrap(), Some(bot));
        assert!(store.token("h4").unwrap().is_some());
        assert!(store.revoke("h3").unwrap());
        assert!(!store.revoke("h3").unwrap());
    }

    #[test]
    fn deleting_keeps_the_name_and_drops_password_and_tokens() {
        let dir = tempfile_dir();
        let store = Store::open(dir.path()).unwrap();
        store.create("alice", &person("Alice")).unwrap();
        store.add_token("h1", &session("alice")).unwrap();
        store.delete("alice").unwrap();
        let account = store.account("alice").unwrap().unwrap();
        assert!(account.deleted);
        assert_eq!(account.password, None);
        assert_eq!(store.token("h1").unwrap(), None);
        assert!(!store.create("alice", &person("alice")).unwrap());
    }

    fn tempfile_dir() -> TempDir {
        TempDir::new("accounts")
    }
}
