//! The answer to `GET /healthz`: a status and a plain-text body, whatever carries them. The
//! server is healthy unless it is shutting down; each outside service it uses (PostgreSQL with
//! `--database`, Redis with `--cluster`) gets a line saying whether it answers now. An unreachable service does not
//! make the node unhealthy: it keeps playing (finished games wait in its outbox), and a load
//! balancer taking every node out because the database blinked would stop every game.

use crate::net::shared::Shared;
use hyper::StatusCode;
use std::time::Duration;

/// How long a service may take to answer the health check.
const PROBE: Duration = Duration::from_secs(1);

/// The HTTP status and the body answering `GET /healthz`.
pub(crate) async fn healthz(ctx: &Shared) -> (StatusCode, String) {
    if ctx.shutting_down() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting down\n".to_string(),
        );
    }
    let mut body = String::from("ok\n");
    if let Some(pg) = ctx.store.postgres() {
        let line = match tokio::time::timeout(PROBE, pg.ping()).await {
            Ok(Ok(())) => "postgres: reachable\n".to_string(),
            Ok(Err(e)) => format!("postgres: unreachable ({e})\n"),
            Err(_) => format!("postgres: unreachable (no answer within {PROBE:?})\n"),
        };
        body.push_str(&line);
    }
    if let Some(cluster) = &ctx.cluster {
        let line = match tokio::time::timeout(PROBE, cluster.ping()).await {
            Ok(Ok(())) => format!("redis: reachable (node {})\n", cluster.node),
            Ok(Err(e)) => format!("redis: unreachable ({e})\n"),
            Err(_) => format!("redis: unreachable (no answer within {PROBE:?})\n"),
        };
        body.push_str(&line);
    }
    (StatusCode::OK, body)
}
