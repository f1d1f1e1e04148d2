//! The JChomp clients: shared connection code for the `jchomp` CLI and the `jchomp-bench` load generator.
