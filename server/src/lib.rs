//! The JChomp WebSocket game server (library: `run(listener, shutdown)`).
