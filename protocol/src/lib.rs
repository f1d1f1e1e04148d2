//! JChomp's shared library: the rules ([`rules`], pure), game records ([`record`]) and the JSON
//! wire messages ([`wire`]) that the server, the bots and the clients all speak; with the
//! `client` feature, also the client side of a connection (`connection`).

#[cfg(feature = "client")]
pub mod connection;
pub mod json;
pub mod record;
pub mod rules;
pub mod wire;
