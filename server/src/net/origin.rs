//! The `Origin` check of a WebSocket upgrade: a browser names the page that opens a socket, and a
//! page of another site must not act with a player's connection. No `Origin` (bots, the terminal
//! client, command-line tools) is let in; so is the server's own origin (the `Host` the request
//! came to, over `http` or `https`) and each origin of `--allowed-origin`; anything else is
//! refused before the upgrade (docs/SECURITY.md, "Cross-site requests").

use hyper::header::{self, HeaderMap};

/// Whether a WebSocket upgrade with these headers may go ahead, given the allowed origins
/// (each as [`crate::settings`] reads `--allowed-origin`: lower case, no trailing `/`).
pub(crate) fn allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let Some(origin) = origins.next() else {
        return true;
    };
    if origins.next().is_some() {
        return false;
    }
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().to_ascii_lowercase();
    if allowed.contains(&origin) {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.trim().to_ascii_lowercase());
    host.is_some_and(|host| same_site(&origin, &host))
}

/// Whether `origin` (`scheme://authority`) is the server's own, reached as `host`: the same
/// authority over `http` or `https`, a default port written or left out.
fn same_site(origin: &str, host: &str) -> bool {
    let (authority, default_port) = match origin.split_once("://") {
        Some(("http", a)) => (a, ":80"),
        Some(("https", a)) => (a, ":443"),
        _ => return false,
    };
    !authority.is_empty()
        && (authority == host
            || host.strip_suffix(default_port) == Some(authority)
            || authority.strip_suffix(default_port) == Some(host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::allowed_origin as normalize;
    use hyper::header::HeaderValue;

    fn headers(origin: Option<&'static str>, host: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static(host));
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_static(o));
        }
        h
    }

    #[test]
    fn no_origin_and_the_servers_own_are_let_in() {
        let none: [String; 0] = [];
        assert!(allowed(&headers(None, "chomp.example:7777"), &none));
        for (origin, host) in [
            ("http://chomp.example:7777", "chomp.example:7777"),
            ("https://Chomp.Example", "chomp.example"),
            ("https://chomp.example", "chomp.example:443"),
            ("http://chomp.example", "chomp.example:80"),
            ("http://127.0.0.1:7777", "127.0.0.1:7777"),
        ] {
            assert!(allowed(&headers(Some(origin), host), &none), "{origin}");
        }
    }

    #[test]
    fn another_sites_page_is_refused_unless_allowed() {
        let none: [String; 0] = [];
        for (origin, host) in [
            ("https://evil.example", "chomp.example"),
            ("http://chomp.example:8080", "chomp.example:7777"),
            ("https://chomp.example.evil.example", "chomp.example"),
            ("null", "chomp.example"),
            ("ws://chomp.example", "chomp.example"),
            ("http://", ""),
        ] {
            assert!(!allowed(&headers(Some(origin), host), &none), "{origin}");
        }
        let list = [normalize("https://Play.Example.org/").unwrap()];
        assert!(allowed(
            &headers(Some("https://play.example.org"), "10.0.0.5:7777"),
            &list
        ));
        assert!(!allowed(
            &headers(Some("http://play.example.org"), "10.0.0.5:7777"),
            &list
        ));
        let mut two = headers(Some("https://chomp.example"), "chomp.example");
        two.append(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(!allowed(&two, &none), "two Origin headers");
    }

    #[test]
    fn allowed_origins_are_written_as_browsers_write_them() {
        assert_eq!(
            normalize("HTTPS://Chomp.Example.org:8443/").as_deref(),
            Ok("https://chomp.example.org:8443")
        );
        for bad in [
            "chomp.example",
            "ftp://x",
            "https://",
            "https://x/play",
            "https://u@x",
        ] {
            assert!(normalize(bad).is_err(), "{bad}");
        }
    }
}
