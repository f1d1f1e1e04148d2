//! [`Answer`]: an HTTP response as the server builds it (the whole body at once), shared by the
//! router ([`super::http`]) and the web client's files ([`super::assets`]).

use http_body_util::Full;
use hyper::Response;
use hyper::StatusCode;
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};

/// A response as the server builds it: the whole body at once.
pub(crate) type Answer = Response<Full<Bytes>>;

/// A response with this status, content type and body, never cached.
pub(crate) fn answer(status: StatusCode, content_type: &'static str, body: Bytes) -> Answer {
    let mut res = Response::new(Full::new(body));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}
