//! [`lock`]: a mutex's guard even after a thread panicked holding it. The server's mutexes guard
//! maps and queues that stay consistent between statements, so a panic elsewhere must not
//! stop every later caller.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, taking the guard of a poisoned mutex as it is.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
