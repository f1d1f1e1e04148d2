//! JChomp bots: the search engine, bot specs, and the tools behind `jchomp-bot`.
