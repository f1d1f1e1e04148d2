//! The `jchomp` terminal client.
fn main() {}
