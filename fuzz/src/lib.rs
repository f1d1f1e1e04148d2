//! The checks behind the fuzz targets, shared with the protocol crate's regression test (which
//! includes `checks.rs` and the brute-force model by path, so both run the very same code).

#[path = "../../protocol/tests/model/mod.rs"]
pub mod model;

pub mod checks;
