//! The one reading of a server address as the tools take it (`--server`, `JCHOMP_SERVER`):
//! `host:port` (or a bare host, on the default port), `ws://` and `wss://` URLs, and `http://`
//! and `https://` URLs mapped to their WebSocket schemes; a URL without a path gets the
//! server's WebSocket path `/ws`.

/// The server's WebSocket path.
pub const WS_PATH: &str = "/ws";

/// The port of a server address given without one.
pub const DEFAULT_PORT: u16 = 7777;

/// Why a server address is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ServerUrlError {
    /// Nothing was given.
    #[error("the server address is empty")]
    Empty,
    /// A scheme the client cannot speak.
    #[error(
        "the server address {0:?} has a scheme the client cannot use: give host:port, \
         ws://host:port, wss://host:port, http://host:port or https://host:port"
    )]
    Scheme(String),
    /// No host, or a malformed host or port.
    #[error("the server address {0:?} is not host:port or a URL")]
    Malformed(String),
}

/// Reads a server address into the WebSocket URL to connect to.
///
/// `127.0.0.1:17877` and `ws://127.0.0.1:17877/` both become `ws://127.0.0.1:17877/ws`;
/// `https://example.org` becomes `wss://example.org/ws`; an explicit path is kept.
pub fn parse_server(text: &str) -> Result<String, ServerUrlError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ServerUrlError::Empty);
    }
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme, rest)) => {
            let ws = match scheme.to_ascii_lowercase().as_str() {
                "ws" | "http" => "ws",
                "wss" | "https" => "wss",
                _ => return Err(ServerUrlError::Scheme(text.to_owned())),
            };
            (ws, rest)
        }
        None => ("ws", text),
    };
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let bad = || ServerUrlError::Malformed(text.to_owned());
    if authority.is_empty() || authority.contains(char::is_whitespace) || authority.contains('@') {
        return Err(bad());
    }
    let has_port = match authority.rsplit_once(':') {
        // An IPv6 literal (`[::1]`) has colons of its own.
        Some((host, port)) if !port.contains(']') => {
            if host.is_empty() || port.parse::<u16>().is_err() {
                return Err(bad());
            }
            true
        }
        _ => false,
    };
    // A bare host (no scheme, no port) is a server on the default port; a URL without a port
    // uses its scheme's.
    let authority = if has_port || scheme_given(text) {
        authority.to_owned()
    } else {
        format!("{authority}:{DEFAULT_PORT}")
    };
    let path = if path.is_empty() || path == "/" {
        WS_PATH
    } else {
        path
    };
    Ok(format!("{scheme}://{authority}{path}"))
}

fn scheme_given(text: &str) -> bool {
    text.contains("://")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_address_reads_as_a_websocket_url() {
        for (given, want) in [
            ("127.0.0.1:17877", "ws://127.0.0.1:17877/ws"),
            ("localhost", "ws://localhost:7777/ws"),
            ("ws://127.0.0.1:17877/ws", "ws://127.0.0.1:17877/ws"),
            ("ws://127.0.0.1:17877/", "ws://127.0.0.1:17877/ws"),
            ("ws://127.0.0.1:17877", "ws://127.0.0.1:17877/ws"),
            ("http://127.0.0.1:17877", "ws://127.0.0.1:17877/ws"),
            ("https://example.org", "wss://example.org/ws"),
            ("HTTPS://example.org/chomp/ws", "wss://example.org/chomp/ws"),
            ("wss://[::1]:9000/", "wss://[::1]:9000/ws"),
            ("  ws://h:1/ws  ", "ws://h:1/ws"),
        ] {
            assert_eq!(parse_server(given).as_deref(), Ok(want), "{given}");
        }
    }

    #[test]
    fn bad_addresses_are_refused_in_words() {
        assert_eq!(parse_server(" "), Err(ServerUrlError::Empty));
        let e = parse_server("ftp://h:1").unwrap_err();
        assert!(e.to_string().contains("give host:port, ws://"), "{e}");
        for bad in ["h:notaport", ":17877", "ws://", "h:99999", "a b:1"] {
            assert!(
                matches!(parse_server(bad), Err(ServerUrlError::Malformed(_))),
                "{bad}"
            );
        }
    }
}
