//! [`Hasher`]: Argon2id password hashing and checking, run off the async workers on tokio's
//! blocking threads, at most [`HASHING_AT_ONCE`] at a time and [`HASHING_QUEUE`] waiting, so a
//! flood of logins costs at most that many cores and never a game's task.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Hashes computed at once (each takes one core for its duration).
pub(crate) const HASHING_AT_ONCE: usize = 1;
/// Hashing requests waiting at most; past it a login or registration is refused as busy.
pub(crate) const HASHING_QUEUE: usize = 32;
/// The shortest password, in characters.
pub(crate) const MIN_PASSWORD: usize = 8;
/// The longest password, in bytes (bounds what one hash costs).
pub(crate) const MAX_PASSWORD: usize = 256;

/// Why hashing or checking did not give an answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HashError {
    /// Too many requests are waiting.
    #[error("the server is busy checking passwords; try again in a moment")]
    Busy,
    /// Argon2 or its thread failed.
    #[error("password hashing failed: {0}")]
    Failed(String),
}

/// Argon2id (the crate's default: version 0x13, m = 19456 KiB, t = 2, p = 1) on a bounded
/// share of the blocking threads.
#[derive(Debug, Clone)]
pub(crate) struct Hasher {
    running: Arc<Semaphore>,
    waiting: Arc<Semaphore>,
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher {
            running: Arc::new(Semaphore::new(HASHING_AT_ONCE)),
            waiting: Arc::new(Semaphore::new(HASHING_AT_ONCE + HASHING_QUEUE)),
        }
    }
}

/// A PHC string for a password nobody has, checked when a login names no account so that the
/// answer takes as long as for a real account.
fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_now("no account has this password").unwrap_or_default())
}

/// Hashes `password` with a fresh random salt, on this thread.
fn hash_now(password: &str) -> Result<String, HashError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError::Failed(e.to_string()))
}

/// Whether `password` matches the PHC string `hash`, on this thread.
fn verify_now(password: &str, hash: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), hash)
        .is_ok()
}

impl Hasher {
    /// Runs `work` on a blocking thread once a hashing slot is free.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let _queued = self
            .waiting
            .clone()
            .try_acquire_owned()
            .map_err(|_| HashError::Busy)?;
        let _running = self
            .running
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| HashError::Failed(e.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| HashError::Failed(e.to_string()))
    }

    /// The Argon2id PHC string of `password` with a fresh salt.
    pub(crate) async fn hash(&self, password: String) -> Result<String, HashError> {
        self.run(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `hash`; with no hash (no such account), checks a decoy so
    /// that the answer takes as long, and says no.
    pub(crate) async fn verify(
        &self,
        password: String,
        hash: Option<String>,
    ) -> Result<bool, HashError> {
        self.run(move || match hash {
            Some(hash) => verify_now(&password, &hash),
            None => {
                verify_now(&password, decoy());
                false
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_is_argon2id_salted_and_checks_only_its_password() {
        let hasher = Hasher::default();
        let a = hasher.hash("correct horse".into()).await.unwrap();
        let b = hasher.hash("correct horse".into()).await.unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "fresh salt each time");
        assert!(
            hasher
                .verify("correct horse".into(), Some(a.clone()))
                .await
                .unwrap()
        );
        assert!(!hasher.verify("wrong horse".into(), Some(a)).await.unwrap());
        assert!(!hasher.verify("anything".into(), None).await.unwrap());
    }

    #[tokio::test]
    async fn past_the_queue_a_request_is_refused_as_busy() {
        let hasher = Hasher::default();
        let held: Vec<_> = (0..HASHING_AT_ONCE + HASHING_QUEUE)
            .map(|_| hasher.waiting.clone().try_acquire_owned().unwrap())
            .collect();
        assert!(matches!(
            hasher.hash("password".into()).await,
            Err(HashError::Busy)
        ));
        drop(held);
        assert!(hasher.hash("password".into()).await.is_ok());
    }
}
