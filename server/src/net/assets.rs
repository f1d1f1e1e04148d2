//! The web client's files (`server/web/`), embedded in the binary and served with their
//! content type, an `ETag` of their content (`If-None-Match` → `304`), gzip when the browser
//! takes it and it is smaller, and an HTML `404` page for any other path.

use crate::net::answer::{self, Answer};
use flate2::Compression;
use flate2::write::GzEncoder;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use std::io::Write;
use std::sync::OnceLock;

/// One embedded file.
struct File {
    /// The path it is served at.
    path: &'static str,
    /// Its `Content-Type`.
    content_type: &'static str,
    /// Its bytes.
    body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// One embedded file: its path on the server, its content type and its source under `web/`.
macro_rules! file {
    ($path:literal, $type:expr, $source:literal) => {
        File {
            path: $path,
            content_type: $type,
            body: include_bytes!($source),
        }
    };
}

/// Every file of the web client.
const FILES: &[File] = &[
    file!("/", HTML, "../../web/index.html"),
    file!("/style.css", CSS, "../../web/style.css"),
    file!("/js/app.js", JS, "../../web/js/app.js"),
    file!("/js/dom.js", JS, "../../web/js/dom.js"),
    file!("/js/net.js", JS, "../../web/js/net.js"),
    file!("/js/rules.js", JS, "../../web/js/rules.js"),
    file!("/js/board.js", JS, "../../web/js/board.js"),
    file!("/js/lobby.js", JS, "../../web/js/lobby.js"),
    file!("/js/play.js", JS, "../../web/js/play.js"),
    file!("/js/game.js", JS, "../../web/js/game.js"),
    file!("/js/replay.js", JS, "../../web/js/replay.js"),
    file!("/js/notation.js", JS, "../../web/js/notation.js"),
    file!("/js/analysis.js", JS, "../../web/js/analysis.js"),
    file!("/js/session.js", JS, "../../web/js/session.js"),
    file!("/js/account.js", JS, "../../web/js/account.js"),
    file!("/js/ratings.js", JS, "../../web/js/ratings.js"),
    file!("/js/chart.js", JS, "../../web/js/chart.js"),
    file!("/js/profile.js", JS, "../../web/js/profile.js"),
    file!("/js/leaderboard.js", JS, "../../web/js/leaderboard.js"),
    file!("/js/boardform.js", JS, "../../web/js/boardform.js"),
    file!("/js/tournaments.js", JS, "../../web/js/tournaments.js"),
    file!("/js/tournament.js", JS, "../../web/js/tournament.js"),
    file!("/js/startform.js", JS, "../../web/js/startform.js"),
];

/// The page for a path that holds nothing.
const NOT_FOUND: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width\"><title>Not found · JChomp</title>\
<link rel=\"icon\" href=\"data:,\"><h1>Not found</h1>\
<p>Nothing lives here. <a href=\"/\">Open the JChomp lobby</a>; the game protocol is at <code>/ws</code>.</p>\n";

/// What the pages may load: their own files and their own server's WebSocket, nothing else.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; connect-src 'self'; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A file with what is computed once from it.
struct Prepared {
    file: &'static File,
    etag: HeaderValue,
    /// The gzip of the body, when it is smaller.
    gzip: Option<Bytes>,
}

/// The prepared files, computed on first use.
fn prepared() -> &'static [Prepared] {
    static PREPARED: OnceLock<Vec<Prepared>> = OnceLock::new();
    PREPARED.get_or_init(|| FILES.iter().map(prepare).collect())
}

fn prepare(file: &'static File) -> Prepared {
    let etag = HeaderValue::from_str(&format!("\"{:016x}\"", fnv1a(file.body)))
        .unwrap_or_else(|_| HeaderValue::from_static("\"0\""));
    let gzip = gzip(file.body).filter(|z| z.len() < file.body.len());
    Prepared {
        file,
        etag,
        gzip: gzip.map(Bytes::from),
    }
}

/// FNV-1a, 64 bits: the content hash behind each `ETag`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut z = GzEncoder::new(Vec::new(), Compression::best());
    z.write_all(bytes).ok()?;
    z.finish().ok()
}

/// The answer to a request for a path no other route holds. `get` is whether the method is
/// GET or HEAD.
pub(crate) fn answer(req: &Request<Incoming>, get: bool) -> Answer {
    respond(req.uri().path(), get, req.headers())
}

fn respond(path: &str, get: bool, headers: &hyper::HeaderMap) -> Answer {
    let path = if path == "/index.html" { "/" } else { path };
    let Some(p) = prepared().iter().find(|p| p.file.path == path) else {
        let mut res = answer::answer(
            StatusCode::NOT_FOUND,
            HTML,
            Bytes::from_static(NOT_FOUND.as_bytes()),
        );
        res.headers_mut()
            .insert("content-security-policy", HeaderValue::from_static(POLICY));
        return res;
    };
    if !get {
        let mut res = answer::answer(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            Bytes::from_static(b"use GET\n"),
        );
        res.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return res;
    }
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag.as_bytes() == p.etag.as_bytes());
    let takes_gzip = headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|enc| {
            let mut parts = enc.split(';');
            let name = parts.next().unwrap_or("").trim();
            let refused = parts.any(|q| matches!(q.trim(), "q=0" | "q=0.0" | "q=0.00" | "q=0.000"));
            name.eq_ignore_ascii_case("gzip") && !refused
        });
    let (status, body, gzipped) = if fresh {
        (StatusCode::NOT_MODIFIED, Bytes::new(), false)
    } else {
        match (&p.gzip, takes_gzip) {
            (Some(z), true) => (StatusCode::OK, z.clone(), true),
            _ => (StatusCode::OK, Bytes::from_static(p.file.body), false),
        }
    };
    let mut res = Response::new(Full::new(body));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::ETAG, p.etag.clone());
    // Always asked again, answered 304 while unchanged: a new server's files are seen at once.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    if status == StatusCode::OK {
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(p.file.content_type),
        );
    }
    if gzipped {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    if p.file.content_type == HTML {
        h.insert("content-security-policy", HeaderValue::from_static(POLICY));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;
    use http_body_util::BodyExt;
    use hyper::HeaderMap;
    use std::io::Read;

    fn body(res: Answer) -> Bytes {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(res.into_body().collect()).unwrap().to_bytes()
    }

    fn with(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn every_file_is_served_with_its_type_and_the_page_is_within_its_budget() {
        for f in FILES {
            let res = respond(f.path, true, &HeaderMap::new());
            assert_eq!(res.status(), StatusCode::OK, "{}", f.path);
            assert_eq!(res.headers()[header::CONTENT_TYPE], f.content_type);
            assert_eq!(body(res), f.body, "{}", f.path);
        }
        // The page's budget: HTML, CSS and JavaScript under 150 KB uncompressed.
        let total: usize = FILES.iter().map(|f| f.body.len()).sum();
        assert!(total < 150_000, "{total} bytes");
    }

    #[test]
    fn a_known_etag_is_answered_304_and_another_gets_the_file() {
        let first = respond("/js/app.js", true, &HeaderMap::new());
        let tag = first.headers()[header::ETAG].to_str().unwrap().to_string();
        let again = respond("/js/app.js", true, &with(&[("if-none-match", &tag)]));
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert!(body(again).is_empty());
        let listed = format!("\"other\", W/{tag}");
        let weak = respond("/js/app.js", true, &with(&[("if-none-match", &listed)]));
        assert_eq!(weak.status(), StatusCode::NOT_MODIFIED);
        let stale = respond("/js/app.js", true, &with(&[("if-none-match", "\"0\"")]));
        assert_eq!(stale.status(), StatusCode::OK);
        // Another file's content has another tag.
        let css = respond("/style.css", true, &HeaderMap::new());
        assert_ne!(css.headers()[header::ETAG], tag.as_str());
    }

    #[test]
    fn gzip_only_when_accepted_and_it_unpacks_to_the_file() {
        let z = respond("/", true, &with(&[("accept-encoding", "br, gzip;q=0.8")]));
        assert_eq!(z.headers()[header::CONTENT_ENCODING], "gzip");
        let packed = body(z);
        let mut unpacked = Vec::new();
        GzDecoder::new(&packed[..])
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, FILES[0].body);
        assert!(packed.len() < unpacked.len());
        let refused = respond("/", true, &with(&[("accept-encoding", "gzip;q=0")]));
        assert!(refused.headers().get(header::CONTENT_ENCODING).is_none());
        let plain = respond("/", true, &HeaderMap::new());
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
    }

    #[test]
    fn unknown_paths_get_the_404_page_and_other_methods_405() {
        let missing = respond("/nowhere", true, &HeaderMap::new());
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(String::from_utf8_lossy(&body(missing)).contains("href=\"/\""));
        assert_eq!(
            respond("/", false, &HeaderMap::new()).status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            respond("/index.html", true, &HeaderMap::new()).status(),
            StatusCode::OK
        );
    }
}
