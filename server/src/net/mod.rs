//! The network: the one listener's HTTP and WebSocket serving ([`http`], [`connection`]), a
//! connection's session of requests ([`session`]) and its writer ([`link`]), the limits on
//! clients ([`rate`], [`address_cap`], [`origin`]), the read-only JSON API of profiles and
//! leaderboards ([`api`]), and what every connection task shares ([`shared`]).
//! It hands requests to the game and the cluster; nothing below it imports it.

pub(crate) mod address_cap;
pub(crate) mod answer;
pub(crate) mod api;
pub(crate) mod assets;
pub(crate) mod connection;
pub(crate) mod health;
pub(crate) mod http;
pub(crate) mod link;
pub(crate) mod origin;
pub(crate) mod rate;
pub(crate) mod request;
pub(crate) mod session;
pub(crate) mod shared;
