//! Shutdown: the signal as every task sees it (a `watch` of a flag that becomes `true` once,
//! when the server starts to shut down), and the process signals that start it ([`signal`]).

use tokio::sync::watch;

/// Completes once the server shuts down (or the server is gone).
pub(crate) async fn shutting_down(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// A future completing on Ctrl-C or (on Unix) SIGTERM. The handlers are installed right away,
/// before the caller says it is listening, so that a signal sent as soon as the server is up
/// is caught.
pub fn signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
