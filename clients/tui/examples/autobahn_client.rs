//! An echo client for the Autobahn test suite (`wstest -m fuzzingserver`, run by
//! `scripts/autobahn.sh client`): it opens every case with the same WebSocket stack and limits as
//! the `jchomp` client's [`Connection`](jchomp_tui::connection::Connection) and echoes each
//! message back, so the suite judges the client's WebSocket handling.
//!
//! The client's size limits (1 MiB messages, a 256 KiB write buffer) are raised to 16 MiB so that
//! the suite's big-message cases (9.*) run; with `AUTOBAHN_DEFAULT_LIMITS=1` they are kept, and
//! the cases past them end with the client refusing the message.
//!
//! Usage: `autobahn_client ws://127.0.0.1:9001`

use anyhow::bail;
use futures_util::{SinkExt, StreamExt};
use jchomp_tui::connection::ws_config;
use std::process::ExitCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

const AGENT: &str = "jchomp-client";

/// The largest message of the suite.
const SUITE_MAX: usize = 16 << 20;

/// The client's WebSocket settings, with the size limits raised for the suite unless
/// `AUTOBAHN_DEFAULT_LIMITS` is set.
fn config() -> WebSocketConfig {
    if std::env::var_os("AUTOBAHN_DEFAULT_LIMITS").is_some() {
        return ws_config();
    }
    ws_config()
        .max_message_size(Some(SUITE_MAX))
        .max_frame_size(Some(SUITE_MAX))
        .max_write_buffer_size(2 * SUITE_MAX)
}

/// Opens `url` as `Connection::connect` does.
async fn open(
    url: &str,
) -> anyhow::Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
> {
    match tokio_tungstenite::connect_async_with_config(url, Some(config()), true).await {
        Ok((ws, _)) => Ok(ws),
        Err(e) => bail!("{url}: {e}"),
    }
}

/// Echoes text and binary messages until the peer closes or the connection fails.
async fn echo(url: &str) -> anyhow::Result<()> {
    let mut ws = open(url).await?;
    while let Some(msg) = ws.next().await {
        let msg = match msg {
            Ok(m) => m,
            Err(_) => break,
        };
        let answer = match msg {
            Message::Text(_) | Message::Binary(_) => msg,
            _ => continue,
        };
        if ws.send(answer).await.is_err() {
            break;
        }
    }
    Ok(())
}

/// How many cases the suite has.
async fn case_count(base: &str) -> anyhow::Result<u32> {
    let mut ws = open(&format!("{base}/getCaseCount")).await?;
    match ws.next().await {
        Some(Ok(Message::Text(t))) => Ok(t.trim().parse::<u32>()?),
        other => bail!("no case count: {other:?}"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(base) = std::env::args().nth(1) else {
        eprintln!("usage: autobahn_client ws://HOST:PORT");
        return ExitCode::FAILURE;
    };
    let count = match case_count(&base).await {
        Ok(n) => n,
        Err(e) => {
            eprintln!("autobahn_client: {e}");
            return ExitCode::FAILURE;
        }
    };
    for case in 1..=count {
        if let Err(e) = echo(&format!("{base}/runCase?case={case}&agent={AGENT}")).await {
            eprintln!("autobahn_client: case {case}: {e}");
        }
    }
    match open(&format!("{base}/updateReports?agent={AGENT}")).await {
        Ok(mut ws) => while let Some(Ok(_)) = ws.next().await {},
        Err(e) => {
            eprintln!("autobahn_client: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!("autobahn_client: ran {count} cases");
    ExitCode::SUCCESS
}
