//! JChomp's test kit, used only by tests, benchmarks and fuzz targets: the one brute-force model
//! of the rules ([`model`]) and the exact solver built on it ([`brute`]), the checks the fuzz
//! targets run ([`checks`]), temporary directories ([`temp`]) and, with the `server` feature, the
//! real server started in-process on `127.0.0.1:0` with a small test client ([`server`]).
//!
//! Code here may panic on anything unexpected: a panic is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

pub mod brute;
pub mod checks;
pub mod model;
#[cfg(feature = "server")]
pub mod server;
pub mod temp;
