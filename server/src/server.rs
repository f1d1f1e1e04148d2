//! [`Server`]: the composition root that opens the store and starts every part of the server,
//! the accept loop, and the graceful shutdown that stops accepting, tells clients, lets rooms
//! and the store writer finish, and returns within the shutdown timeout; [`run`] is the three
//! in one call.

use crate::accounts::Accounts;
use crate::cluster::Cluster;
use crate::error::ServerError;
use crate::game::analysis::Analyst;
use crate::game::lobby::Lobby;
use crate::metrics::Metrics;
use crate::net::address_cap::AddressCaps;
use crate::net::connection::serve_tcp;
use crate::net::shared::{Shared, ws_config};
use crate::pairing::Pairing;
use crate::pairing::pool::Rules;
use crate::settings::Settings;
use crate::store::{PgRecords, redacted};
use crate::store::{Replica, Store, StoreHandle, StoreOptions, StoreTimings};
use crate::tournaments::Tournaments;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::TournamentSpec;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::timeout_at;

/// The tournaments of the tournaments file at `path` (`--tournaments`), checked, with their
/// start configurations; or why the file is refused.
pub(crate) fn tournaments_file(
    path: &std::path::Path,
) -> Result<Vec<(TournamentSpec, Vec<ConfigJson>)>, ServerError> {
    crate::tournaments::read_file(path).map_err(|why| ServerError::Tournaments {
        path: path.to_path_buf(),
        why,
    })
}

/// A running server: its accept loop and everything it started. [`Server::start`] is the
/// composition root; [`Server::stop`] shuts it down gracefully.
pub struct Server {
    addr: std::net::SocketAddr,
    stop: watch::Sender<bool>,
    accepting: tokio::task::JoinHandle<()>,
    /// Completes once every connection task and room has dropped its part of the server.
    done: mpsc::Receiver<()>,
    writer: tokio::task::JoinHandle<()>,
    shutdown_timeout: Duration,
}

impl Server {
    /// Opens the store (taking in what its journal holds), connects PostgreSQL and the cluster
    /// when the settings name them, starts the store's writer, brings back every game in play,
    /// and serves the game on `listener` (`/ws`, `/`, `/healthz`, `/metrics`).
    ///
    /// Fails at once if the game database in `settings.data_dir` cannot be opened (for example
    /// because another server holds it), or PostgreSQL or Redis cannot be reached.
    pub async fn start(listener: TcpListener, settings: Settings) -> Result<Server, ServerError> {
        let addr = listener.local_addr()?;
        let shutdown_timeout = settings.shutdown_timeout;
        let store_error = |source| ServerError::Store {
            path: settings.data_dir.clone(),
            source,
        };
        let store = Store::open(&settings.data_dir).map_err(store_error)?;
        store
            .recover(settings.database.is_some())
            .map_err(store_error)?;
        let in_play = store.games_in_play().map_err(store_error)?;
        let records = match &settings.database {
            Some(url) => {
                Some(
                    PgRecords::connect(url)
                        .await
                        .map_err(|source| ServerError::Database {
                            url: redacted(url),
                            source,
                        })?,
                )
            }
            None => None,
        };
        let metrics = Arc::new(Metrics::default());
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let lobby = Arc::new(Lobby::default());
        let cluster = match &settings.cluster {
            Some(url) => {
                let cluster = Cluster::start(
                    url,
                    lobby.clone(),
                    metrics.clone(),
                    settings.outgoing_queue,
                    shutdown_rx.clone(),
                )
                .await
                .map_err(|source| ServerError::Cluster {
                    url: redacted(url),
                    source,
                })?;
                lobby.set_directory(cluster.directory.clone());
                Some(cluster)
            }
            None => None,
        };
        let counted = metrics.clone();
        let replica = cluster
            .as_ref()
            .map(|c| -> Arc<dyn Replica> { Arc::new(c.mirror()) });
        let timings = StoreTimings {
            wait: metrics.durable_wait_seconds.clone(),
            append: metrics.journal_append_seconds.clone(),
            sync: metrics.journal_sync_seconds.clone(),
        };
        let options = StoreOptions {
            durability: settings.durability,
            sync_every: settings.sync_every,
            timings: Some(timings),
        };
        let (store, writer) =
            StoreHandle::start(store, records, replica, options, move |n, res| {
                let c = if res.is_ok() {
                    &counted.games_stored
                } else {
                    &counted.store_errors
                };
                c.inc_by(n as u64);
            });
        // Accounts, tokens and ratings are where finished games are: with `--database`, in
        // PostgreSQL, shared by every node; without it, in this node's embedded database.
        if settings.cluster.is_some() && settings.database.is_none() {
            tracing::warn!(
                "without --database, accounts and ratings are this node's own; give every node the same --database to share them"
            );
        }
        let accounts = Accounts::new(store.accounts(), settings.session_ttl);
        accounts
            .ensure_built_ins()
            .await
            .map_err(|e| ServerError::Accounts(e.to_string()))?;
        let (done_tx, done_rx) = mpsc::channel::<()>(1);
        // Nothing is read or built yet: the first classic game that needs the database starts it.
        let (rows, cols) = settings.classic_box;
        let classic = ClassicLibrary::with_box(Some(settings.classic_db_path()), rows, cols);
        let analyst = Analyst::new(&settings, classic.clone(), metrics.clone());
        let (pairing, pairing_task) = Pairing::new(
            Rules::new(settings.pairing_bot_patience),
            settings.pairing_wave,
        );
        let from_file = match &settings.tournaments {
            Some(path) => tournaments_file(path)?,
            None => Vec::new(),
        };
        let ctx = Arc::new(Shared {
            ws_config: ws_config(&settings),
            pairing,
            tournaments: Tournaments::default(),
            bot_slots: Arc::new(Semaphore::new(settings.bot_threads.clamp(1, 1024))),
            conn_slots: Arc::new(Semaphore::new(
                settings.max_connections.min(Semaphore::MAX_PERMITS),
            )),
            address_caps: AddressCaps::new(settings.max_connections_per_address),
            classic,
            analyst,
            settings,
            lobby,
            cluster,
            metrics,
            store,
            accounts,
            shutdown: shutdown_rx,
            _done: done_tx,
        });
        pairing_task.start(
            ctx.room_context(),
            ctx.accounts.clone(),
            ctx.cluster.clone(),
        );
        if let Some(cluster) = &ctx.cluster {
            // In a cluster, Redis holds the games in play: this node's earlier run had another
            // node id, whose rooms the live nodes (this one too) take over from Redis.
            if !in_play.is_empty() {
                tracing::info!(
                    games = in_play.len(),
                    "games in play come back from Redis in a cluster, not from this node's database"
                );
            }
            cluster.start_takeovers(ctx.room_context(), ctx.store.postgres().cloned());
        } else {
            for stored in in_play {
                let id = stored.room.room.clone();
                match crate::game::room::restore(ctx.room_context(), stored) {
                    Ok(()) => {
                        ctx.metrics.games_restored.inc();
                    }
                    Err(e) => {
                        tracing::error!(room = %id, error = %e, "a game in play cannot be restored; it stays in the database");
                    }
                }
            }
        }
        // Once the games in play are back (alone) or being taken over (in a cluster), so that
        // a tournament follows them, not replays them.
        ctx.tournaments
            .start(
                ctx.room_context(),
                ctx.accounts.clone(),
                from_file,
                ctx.cluster.clone(),
            )
            .await;
        tracing::info!(%addr, data_dir = %ctx.settings.data_dir.display(), "serving");
        let accepting = tokio::spawn(accept(listener, ctx));
        Ok(Server {
            addr,
            stop: shutdown_tx,
            accepting,
            done: done_rx,
            writer,
            shutdown_timeout,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// Shuts down gracefully: no new connections, every client is told and closed, finished
    /// games and the clocks of games in play are committed; returns within the settings'
    /// `shutdown_timeout` (plus a little for the last commit).
    pub async fn stop(mut self) {
        tracing::info!("shutting down");
        let _ = self.stop.send(true);
        let deadline = crate::clock::after(self.shutdown_timeout);
        // The accept loop ends at the signal, dropping the listener and its part of the server.
        let _ = timeout_at(deadline, &mut self.accepting).await;
        if timeout_at(deadline, self.done.recv()).await.is_err() {
            tracing::warn!("some connections or rooms did not end in time");
        }
        match timeout_at(deadline + Duration::from_millis(500), self.writer).await {
            Ok(_) => tracing::info!("stopped"),
            Err(_) => tracing::warn!("the store writer did not finish in time"),
        }
    }
}

/// Serves `listener` until the server shuts down ([`Server::start`], [`Server::stop`] in one
/// call): starts the server, waits for `shutdown` to complete, then stops it gracefully.
pub async fn run(
    listener: TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let server = Server::start(listener, settings).await?;
    shutdown.await;
    server.stop().await;
    Ok(())
}

/// Accepts connections, each served by a task of its own, until the server shuts down.
async fn accept(listener: TcpListener, ctx: Arc<Shared>) {
    let mut shutdown = ctx.shutdown.clone();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, addr)) => {
                    tokio::spawn(serve_tcp(stream, addr, ctx.clone()));
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}
