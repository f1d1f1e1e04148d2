//! [`Link`]: this node's connection to Redis, shared by everything of the cluster that writes
//! or reads there. A connection that stops answering (a network cut drops packets silently, so
//! the socket never breaks) is replaced by a fresh one as soon as one can be made, rather than
//! waiting for the operating system to give the old one up.

use crate::sync::lock;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The connection settings: reconnects quickly, and no command waits long for an answer.
fn config() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_secs(1))
        .set_number_of_retries(3)
        .set_connection_timeout(Some(Duration::from_secs(2)))
        .set_response_timeout(Some(Duration::from_secs(2)))
}

/// This node's Redis connection (a [`ConnectionManager`], cheap to clone), replaceable.
#[derive(Debug)]
pub(super) struct Link {
    client: redis::Client,
    current: Mutex<ConnectionManager>,
    /// A replacement is being made (one at a time).
    replacing: AtomicBool,
}

impl Link {
    /// Connects to Redis through `client`.
    pub(super) async fn open(client: redis::Client) -> Result<Link, redis::RedisError> {
        let current = ConnectionManager::new_with_config(client.clone(), config()).await?;
        Ok(Link {
            client,
            current: Mutex::new(current),
            replacing: AtomicBool::new(false),
        })
    }

    /// The connection to use now.
    pub(super) fn get(&self) -> ConnectionManager {
        lock(&self.current).clone()
    }

    /// After a command went unanswered: makes a fresh connection and uses it from now on, if one
    /// can be made now (within the connection timeout); otherwise keeps the old one, to be
    /// replaced at a later call. Returns whether it was replaced.
    pub(super) async fn replace(&self) -> bool {
        if self.replacing.swap(true, Ordering::AcqRel) {
            return false;
        }
        let fresh = ConnectionManager::new_with_config(self.client.clone(), config()).await;
        self.replacing.store(false, Ordering::Release);
        match fresh {
            Ok(connection) => {
                *lock(&self.current) = connection;
                tracing::info!("a fresh connection to Redis replaces one that stopped answering");
                true
            }
            Err(e) => {
                tracing::debug!(error = %e, "no fresh connection to Redis yet");
                false
            }
        }
    }
}
