//! [`TournamentStore`]: the tournaments the server runs, each one row (its id → its state as
//! JSON, whose shape the tournaments layer owns) in the embedded database, every write one redb
//! transaction fsynced before it returns, so that a tournament's change is durable before anyone
//! is told of it.

use super::db::Store;
use super::error::StoreError;
use redb::{ReadableTable, TableDefinition};
use std::sync::Arc;

/// Tournament id → its state as JSON.
const TOURNAMENTS: TableDefinition<&str, &str> = TableDefinition::new("tournaments");

/// Where tournaments are kept: the embedded database, on the blocking pool.
#[derive(Clone, Debug)]
pub(crate) struct TournamentStore(pub(super) Arc<Store>);

impl TournamentStore {
    /// Writes the state of tournament `id`, durable when it returns.
    pub(crate) async fn save(&self, id: &str, json: String) -> Result<(), StoreError> {
        let (store, id) = (self.0.clone(), id.to_string());
        tokio::task::spawn_blocking(move || store.save_tournament(&id, &json)).await?
    }

    /// Every tournament stored, as (id, JSON), in id order.
    pub(crate) async fn all(&self) -> Result<Vec<(String, String)>, StoreError> {
        let store = self.0.clone();
        tokio::task::spawn_blocking(move || store.tournaments()).await?
    }
}

impl Store {
    fn save_tournament(&self, id: &str, json: &str) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        txn.open_table(TOURNAMENTS)?.insert(id, json)?;
        txn.commit()?;
        Ok(())
    }

    fn tournaments(&self) -> Result<Vec<(String, String)>, StoreError> {
        // A write transaction, so that the table is made on first use.
        let txn = self.db.begin_write()?;
        let out = {
            let table = txn.open_table(TOURNAMENTS)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                let (id, json) = row?;
                out.push((id.value().to_string(), json.value().to_string()));
            }
            out
        };
        txn.commit()?;
        Ok(out)
    }
}
