//! Profiles and leaderboards, as the HTTP API answers them ([`Profile`], [`Leader`]): a
//! player's ratings per category with their history and counts, and each category's top
//! players, people and bots apart, only those not provisional and active lately.

use super::{AccountError, Accounts};
use crate::clock::now_ms;
use crate::ratings::{Point, Rating, provisional};
use crate::store::accounts::{AccountKind, key_of};
use serde::Serialize;
use std::time::Duration;

/// Players a leaderboard lists at most.
pub(crate) const LEADERBOARD_SIZE: usize = 100;
/// Days since the last rated game within which a player is listed, unless asked otherwise.
pub(crate) const ACTIVE_DAYS: u64 = 30;
/// Recent rated games a profile lists.
const RECENT: usize = 20;

/// One category of a profile.
#[derive(Debug, Serialize)]
pub(crate) struct CategoryProfile {
    /// `jchomp:2`, `classic:3-4`, …
    pub category: String,
    /// The rating and its counts.
    #[serde(flatten)]
    pub rating: Rating,
    /// Whether it is still provisional.
    pub provisional: bool,
    /// The rating after each rated game, oldest first.
    pub history: Vec<Point>,
}

/// A player's profile.
#[derive(Debug, Serialize)]
pub(crate) struct Profile {
    /// The name as registered.
    pub name: String,
    /// A bot account or built-in level.
    pub bot: bool,
    /// Deleted (its games keep the name).
    pub deleted: bool,
    /// One entry per category played rated.
    pub ratings: Vec<CategoryProfile>,
    /// The most recent rated games' ids, newest first.
    pub recent: Vec<String>,
    /// A bot account's owner (a person's name); none for people and built-in levels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// A person's bot accounts (names, deleted ones left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<String>,
}

/// One line of a leaderboard.
#[derive(Debug, Serialize)]
pub(crate) struct Leader {
    /// The name as registered.
    pub name: String,
    /// The rating and its counts.
    #[serde(flatten)]
    pub rating: Rating,
}

impl Accounts {
    /// `name`'s rating in `category` (any case), if it has played one rated game there: one
    /// read of its ratings, without the history a profile carries.
    pub(crate) async fn rating(
        &self,
        name: &str,
        category: &str,
    ) -> Result<Option<Rating>, AccountError> {
        let ratings = self.store.ratings_of(&key_of(name)).await?;
        Ok(ratings
            .into_iter()
            .find(|(c, _)| c == category)
            .map(|(_, r)| r))
    }

    /// The profile of the account `name` (any case), if there is one.
    pub(crate) async fn profile(&self, name: &str) -> Result<Option<Profile>, AccountError> {
        let key = key_of(name);
        let Some(account) = self.account(&key).await? else {
            return Ok(None);
        };
        let mut categories = Vec::new();
        for (category, rating) in self.store.ratings_of(&key).await? {
            let history = self.store.history(&key, &category).await?;
            categories.push(CategoryProfile {
                provisional: provisional(&category, &rating),
                category,
                rating,
                history,
            });
        }
        let mut recent: Vec<&Point> = categories.iter().flat_map(|c| &c.history).collect();
        recent.sort_by_key(|p| std::cmp::Reverse(p.when_ms));
        let recent = recent.iter().take(RECENT).map(|p| p.game.clone()).collect();
        let owner = match &account.owner {
            Some(owner) => self.account(owner).await?.map(|o| o.name),
            None => None,
        };
        let mut bots = Vec::new();
        if account.kind == AccountKind::Person {
            for bot in self.store.bots_of(&key).await? {
                if let Some(b) = self.account(&bot).await?.filter(|b| !b.deleted) {
                    bots.push(b.name);
                }
            }
            bots.sort_unstable_by_key(|b| b.to_lowercase());
        }
        Ok(Some(Profile {
            name: account.name,
            bot: account.kind != AccountKind::Person,
            deleted: account.deleted,
            ratings: categories,
            recent,
            owner,
            bots,
        }))
    }

    /// The top of `category`: bots or people, not provisional, with a rated game in the last
    /// `days` days, best first.
    pub(crate) async fn leaderboard(
        &self,
        category: &str,
        bots: bool,
        days: u64,
    ) -> Result<Vec<Leader>, AccountError> {
        let since = now_ms().saturating_sub(Duration::from_secs(days * 86_400).as_millis() as u64);
        let ratings = self.store.ratings_in(category).await?;
        let accounts = self.store.accounts().await?;
        let accounts: std::collections::HashMap<String, _> = accounts.into_iter().collect();
        let mut board: Vec<Leader> = ratings
            .into_iter()
            .filter(|(_, r)| !provisional(category, r) && r.last_ms >= since)
            .filter_map(|(key, rating)| {
                let a = accounts.get(&key)?;
                let is_bot = a.kind != AccountKind::Person;
                (is_bot == bots && !a.deleted).then(|| Leader {
                    name: a.name.clone(),
                    rating,
                })
            })
            .collect();
        board.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating));
        board.truncate(LEADERBOARD_SIZE);
        Ok(board)
    }
}
