//! The `Origin` check of the WebSocket upgrade, over real sockets: a page of another site is
//! refused with `403` before the upgrade (and counted), while no `Origin`, the server's own and
//! an allow-listed one are let in and served; a refused handshake leaves no connection, session
//! or room behind, even with a request for a room sent straight after it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, settings};
use jchomp_server::Settings;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

/// The refusals counted in `/metrics`.
const REFUSED: &str = "jchomp_websocket_origins_refused_total";

/// Opens a WebSocket to `/ws` with this `Origin` (none for `None`): a client if the server
/// upgrades, the HTTP status it answered otherwise.
async fn open(server: &TestServer, origin: Option<&str>) -> Result<Client, u16> {
    let mut req = server.url().into_client_request().unwrap();
    if let Some(o) = origin {
        req.headers_mut()
            .insert("origin", HeaderValue::from_str(o).unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(Client { ws }),
        Err(WsError::Http(res)) => Err(res.status().as_u16()),
        Err(e) => panic!("neither an upgrade nor an HTTP answer: {e}"),
    }
}

/// A client let in is served: it gets the room list.
async fn served(mut client: Client) {
    client.send(json!({"type": "list_rooms"})).await;
    client.until("rooms").await;
}

#[tokio::test]
async fn another_sites_page_is_refused_and_the_own_site_and_tools_are_served() {
    let server = TestServer::start().await;
    for forged in [
        "https://evil.example",
        "http://127.0.0.1:1",
        &format!("http://{}.evil.example", server.addr.ip()),
        "null",
    ] {
        assert_eq!(
            open(&server, Some(forged)).await.err(),
            Some(403),
            "{forged}"
        );
    }
    assert_eq!(server.metric(REFUSED).await, 4);
    served(open(&server, None).await.expect("no Origin: a bot, a tool")).await;
    let own = format!("http://{}", server.addr);
    served(
        open(&server, Some(&own))
            .await
            .expect("the server's own page"),
    )
    .await;
    let own_tls = format!("https://{}", server.addr);
    served(
        open(&server, Some(&own_tls))
            .await
            .expect("its page behind TLS"),
    )
    .await;
    assert_eq!(server.metric(REFUSED).await, 4);
    assert_eq!(server.metric("jchomp_connections_total").await, 3);
}

#[tokio::test]
async fn an_allowed_origin_is_served_and_others_still_refused() {
    let server = TestServer::start_with(Settings {
        allowed_origins: vec!["https://play.example.org".to_string()],
        ..settings()
    })
    .await;
    served(
        open(&server, Some("https://play.example.org"))
            .await
            .expect("allow-listed"),
    )
    .await;
    assert_eq!(
        open(&server, Some("https://evil.example")).await.err(),
        Some(403)
    );
    assert_eq!(
        open(&server, Some("http://play.example.org")).await.err(),
        Some(403),
        "the allow-list names the scheme too"
    );
    assert_eq!(server.metric(REFUSED).await, 2);
}

/// A masked WebSocket text frame carrying `text` (shorter than 126 bytes), as a client sends it.
fn frame(text: &str) -> Vec<u8> {
    let mask = [0x12, 0x34, 0x56, 0x78];
    let mut out = vec![0x81, 0x80 | u8::try_from(text.len()).unwrap()];
    out.extend_from_slice(&mask);
    out.extend(text.bytes().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

#[tokio::test]
async fn a_refused_handshake_leaves_nothing_behind() {
    let server = TestServer::start().await;
    let create = json!({"type": "create_room", "name": "mallory",
                        "config": config_value("4x4 poison 0,0")});
    let create = serde_json::to_string(&create).unwrap();
    assert!(create.len() < 126, "{create}");
    for _ in 0..3 {
        // The upgrade request and, straight after it, a frame asking for a room.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let head = "GET /ws HTTP/1.1\r\nHost: chomp.example\r\nOrigin: https://evil.example\r\n\
                    Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
                    Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
        let mut bytes = head.as_bytes().to_vec();
        bytes.extend(frame(&create));
        s.write_all(&bytes).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut answer))
            .await
            .expect("the server answers and closes")
            .unwrap();
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(!answer.contains("101 Switching"), "{answer}");
    }
    assert_eq!(server.metric(REFUSED).await, 3);
    assert_eq!(server.metric("jchomp_connections_total").await, 0);
    assert_eq!(server.metric("jchomp_connections_open").await, 0);
    assert_eq!(server.metric("jchomp_rooms_created_total").await, 0);
    let mut looker = server.client().await;
    looker.send(json!({"type": "list_rooms"})).await;
    let rooms = looker.until("rooms").await;
    assert_eq!(rooms["rooms"], json!([]), "{rooms}");
}
