//! The server's shutdown signal as every task sees it: a `watch` of a flag that becomes `true`
//! once, when the server starts to shut down.

use tokio::sync::watch;

/// Completes once the server shuts down (or the server is gone).
pub(crate) async fn shutting_down(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}
