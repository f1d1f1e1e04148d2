//! The HTTP side of the single port, on hyper: one connection's requests are read with the
//! limits of docs/SECURITY.md (head size, header count, time for a head), each is answered by
//! [`route`] — the web client's assets, `/healthz`, `/metrics`, the read-only `/api/`, the
//! WebSocket upgrade on `/ws` (from an allowed origin only) — and an upgraded connection is
//! handed back to the caller as the plain TCP stream with the bytes hyper had already read past
//! the request.

use crate::net::answer::{Answer, answer};
use crate::net::assets;
use crate::net::origin;
use crate::net::shared::Shared;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

/// Longest request head accepted, in bytes.
const MAX_HEAD: usize = 8 * 1024;
/// Most headers accepted.
const MAX_HEADERS: usize = 32;
/// Content type of the plain-text answers.
const TEXT: &str = "text/plain; charset=utf-8";

/// A WebSocket upgrade the server accepted: the socket after the `101`, and what to run on it.
pub(crate) struct Upgraded {
    /// The connection's TCP stream.
    pub stream: TcpStream,
    /// Bytes read past the upgrade request (the start of the first frames).
    pub read_ahead: Vec<u8>,
    /// The test-only echo path rather than the game.
    pub echo: bool,
}

/// An upgrade accepted by [`route`], waiting for hyper to hand the connection over.
struct Pending {
    on_upgrade: hyper::upgrade::OnUpgrade,
    echo: bool,
}

/// Serves HTTP requests on `stream` until the client closes, a limit is hit, the server shuts
/// down, or a request upgrades to WebSocket — then returns the upgraded connection.
pub(crate) async fn serve(
    stream: TcpStream,
    addr: SocketAddr,
    ctx: &Arc<Shared>,
) -> Option<Upgraded> {
    let pending: Arc<Mutex<Option<Pending>>> = Arc::default();
    let service = {
        let ctx = ctx.clone();
        let pending = pending.clone();
        service_fn(move |mut req: Request<Incoming>| {
            let ctx = ctx.clone();
            let pending = pending.clone();
            async move {
                let answer = match route(&ctx, &req) {
                    Route::Answer(answer) => answer,
                    Route::Health => healthz(&ctx).await,
                    Route::Api => {
                        let uri = req.uri();
                        crate::net::api::answer_api(&ctx, uri.path(), uri.query()).await
                    }
                    Route::Upgrade { key, echo } => {
                        let on_upgrade = hyper::upgrade::on(&mut req);
                        if let Ok(mut slot) = pending.lock() {
                            *slot = Some(Pending { on_upgrade, echo });
                        }
                        switching_protocols(&key)
                    }
                };
                Ok::<_, Infallible>(answer)
            }
        })
    };
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(ctx.settings.handshake_timeout)
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(conn);
    let mut shutdown = ctx.shutdown.clone();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    tokio::pin!(stop);
    let served = tokio::select! {
        served = conn.as_mut() => served,
        _ = &mut stop => {
            conn.as_mut().graceful_shutdown();
            // An idle connection ends at once; one mid-request once its answer is out.
            tokio::time::timeout(ctx.settings.handshake_timeout, conn.as_mut())
                .await
                .unwrap_or(Ok(()))
        }
    };
    if let Err(e) = served {
        tracing::debug!(%addr, error = %e, "HTTP connection ended");
    }
    let pending = pending.lock().ok()?.take()?;
    let upgraded = match pending.on_upgrade.await {
        Ok(upgraded) => upgraded,
        Err(e) => {
            tracing::debug!(%addr, error = %e, "upgrade failed");
            return None;
        }
    };
    match upgraded.downcast::<TokioIo<TcpStream>>() {
        Ok(parts) => Some(Upgraded {
            stream: parts.io.into_inner(),
            read_ahead: parts.read_buf.to_vec(),
            echo: pending.echo,
        }),
        Err(_) => {
            tracing::warn!(%addr, "upgraded connection is not the TCP stream");
            None
        }
    }
}

/// What a request gets.
enum Route {
    /// This answer.
    Answer(Answer),
    /// `101 Switching Protocols` with this key's accept value, then the WebSocket.
    Upgrade { key: String, echo: bool },
    /// `GET /healthz`, which asks the outside services.
    Health,
    /// `GET /api/…`: profiles and leaderboards, read from the store.
    Api,
}

/// The one routing table of the port: each route is one line.
fn route(ctx: &Shared, req: &Request<Incoming>) -> Route {
    let path = req.uri().path();
    let get = matches!(*req.method(), Method::GET | Method::HEAD);
    let echo = ctx.settings.echo_path.as_deref() == Some(path);
    Route::Answer(match path {
        "/ws" => return websocket(ctx, req, false),
        _ if echo => return websocket(ctx, req, true),
        "/healthz" if get => return Route::Health,
        _ if get && path.starts_with("/api/") => return Route::Api,
        "/metrics" if get => metrics(ctx),
        "/healthz" | "/metrics" => text(StatusCode::METHOD_NOT_ALLOWED, "use GET\n"),
        _ => assets::answer(req, get),
    })
}

/// `GET /healthz`: `ok` (with a line per outside service), or `503` while shutting down.
async fn healthz(ctx: &Shared) -> Answer {
    let (status, body) = crate::net::health::healthz(ctx).await;
    answer(status, TEXT, body.into())
}

/// `GET /metrics`: the OpenMetrics text.
fn metrics(ctx: &Shared) -> Answer {
    ctx.metrics
        .classic_db_ready
        .set(i64::from(ctx.classic_db_ready()));
    let body = ctx.metrics.render(ctx.lobby.counts());
    answer(StatusCode::OK, crate::metrics::CONTENT_TYPE, body.into())
}

/// The upgrade of a valid WebSocket request from an allowed origin, or the answer refusing
/// it.
fn websocket(ctx: &Shared, req: &Request<Incoming>, echo: bool) -> Route {
    if !origin::allowed(req.headers(), &ctx.settings.allowed_origins) {
        ctx.metrics.origins_refused.inc();
        tracing::info!(
            origin = ?req.headers().get(header::ORIGIN),
            "WebSocket refused: a page of another origin"
        );
        return Route::Answer(text(
            StatusCode::FORBIDDEN,
            "pages of this origin may not open a WebSocket here\n",
        ));
    }
    match websocket_key(req.method(), req.headers()) {
        Ok(key) => Route::Upgrade {
            key: key.to_string(),
            echo,
        },
        Err((status, body)) => Route::Answer(text(status, body)),
    }
}

/// The `Sec-WebSocket-Key` of a valid upgrade request, or the status and message to refuse it
/// with.
fn websocket_key<'h>(
    method: &Method,
    headers: &'h HeaderMap,
) -> Result<&'h str, (StatusCode, &'static str)> {
    if method != Method::GET {
        return Err((
            StatusCode::METHOD_NOT_ALLOWED,
            "use GET to open a WebSocket\n",
        ));
    }
    let has = |name: header::HeaderName, token: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str().is_ok_and(|v| {
                v.split(',')
                    .any(|part| part.trim().eq_ignore_ascii_case(token))
            })
        })
    };
    if !has(header::UPGRADE, "websocket") || !has(header::CONNECTION, "upgrade") {
        return Err((
            StatusCode::UPGRADE_REQUIRED,
            "this endpoint speaks WebSocket only\n",
        ));
    }
    let value = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if value(header::SEC_WEBSOCKET_VERSION).map(str::trim) != Some("13") {
        return Err((
            StatusCode::UPGRADE_REQUIRED,
            "Sec-WebSocket-Version must be 13\n",
        ));
    }
    match value(header::SEC_WEBSOCKET_KEY).map(str::trim) {
        Some(k) if !k.is_empty() => Ok(k),
        _ => Err((StatusCode::BAD_REQUEST, "Sec-WebSocket-Key is missing\n")),
    }
}

/// The `101 Switching Protocols` answer to an upgrade with this key.
fn switching_protocols(key: &str) -> Answer {
    let mut res = Response::new(Full::default());
    *res.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = res.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    if let Ok(accept) = HeaderValue::from_str(&derive_accept_key(key.as_bytes())) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    }
    res
}

/// A plain-text response.
fn text(status: StatusCode, body: &'static str) -> Answer {
    answer(status, TEXT, Bytes::from_static(body.as_bytes()))
}

/// Refuses a connection past the connection cap with `503` at once, without reading its
/// request (an attacker holding the slots should not also hold this task), and closes it.
pub(crate) async fn refuse_busy(stream: &mut TcpStream) {
    refuse(
        stream,
        "503 Service Unavailable",
        "the server is at its connection limit\n",
    )
    .await;
}

/// Answers a connection that is refused before its request is read with `status` (e.g.
/// `429 Too Many Requests`) and a plain-text `body`, and closes it.
pub(crate) async fn refuse(stream: &mut TcpStream, status: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {TEXT}\r\nContent-Length: {}\r\n\
         Connection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(head.as_bytes()).await.is_ok() {
        let _ = stream.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn an_upgrade_request_gives_its_key_and_the_rfc_accept_value() {
        let h = headers(&[
            ("upgrade", "WebSocket"),
            ("connection", "keep-alive, Upgrade"),
            ("sec-websocket-version", "13"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]);
        assert_eq!(
            websocket_key(&Method::GET, &h),
            Ok("dGhlIHNhbXBsZSBub25jZQ==")
        );
        let res = switching_protocols("dGhlIHNhbXBsZSBub25jZQ==");
        assert_eq!(res.status(), StatusCode::SWITCHING_PROTOCOLS);
        // The RFC 6455 example key.
        assert_eq!(
            res.headers()[header::SEC_WEBSOCKET_ACCEPT],
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn bad_upgrades_are_refused_with_their_reason() {
        let plain = headers(&[]);
        assert_eq!(
            websocket_key(&Method::GET, &plain).unwrap_err().0,
            StatusCode::UPGRADE_REQUIRED
        );
        assert_eq!(
            websocket_key(&Method::POST, &plain).unwrap_err().0,
            StatusCode::METHOD_NOT_ALLOWED
        );
        let old = headers(&[
            ("upgrade", "websocket"),
            ("connection", "upgrade"),
            ("sec-websocket-version", "8"),
            ("sec-websocket-key", "x"),
        ]);
        assert_eq!(
            websocket_key(&Method::GET, &old).unwrap_err().1,
            "Sec-WebSocket-Version must be 13\n"
        );
        let keyless = headers(&[
            ("upgrade", "websocket"),
            ("connection", "upgrade"),
            ("sec-websocket-version", "13"),
        ]);
        assert_eq!(
            websocket_key(&Method::GET, &keyless).unwrap_err().0,
            StatusCode::BAD_REQUEST
        );
    }
}
