//! `analyze`: the value of every valid selection of a room's position or a stored game's, worked
//! out off the async threads. [`Subject`] is the position asked about (`subject.rs`),
//! [`annotate`] the computation itself (`compute.rs`: the classic database, or search under a
//! time cap), and [`Analyst`] runs it on the blocking pool and answers the connection
//! (`job.rs`).

mod compute;
mod job;
mod subject;

pub(crate) use compute::annotate;
pub(crate) use job::Analyst;
pub(crate) use subject::{About, Subject};
