//! [`Cli`]: the `jchomp-server` command line — where to listen, how many threads, and the
//! [`Settings`] (every flag of theirs is derived from the settings themselves).

use crate::settings::{DEFAULT_ADDR, Settings};

/// The JChomp WebSocket game server.
#[derive(Debug, clap::Parser)]
#[command(name = "jchomp-server", version, about)]
pub struct Cli {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Threads serving connections and rooms (default: the number of CPUs). Where other busy
    /// processes share the CPUs (a load generator on the same machine, say), fewer threads
    /// than CPUs spend less time handing work between them; see docs/PERFORMANCE.md.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// The server's settings.
    #[command(flatten)]
    pub settings: Settings,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};
    use std::path::PathBuf;
    use std::time::Duration;

    #[test]
    fn the_flags_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_flags_means_the_default_settings() {
        let cli = Cli::try_parse_from(["jchomp-server"]).unwrap();
        assert_eq!(cli.settings, Settings::default());
        assert_eq!(cli.addr, DEFAULT_ADDR);
        assert_eq!(cli.threads, None);
    }

    #[test]
    fn help_shows_the_default_settings() {
        let help = Cli::command().render_help().to_string();
        let d = Settings::default();
        for (flag, default) in [
            ("--addr", DEFAULT_ADDR.to_string()),
            ("--data-dir", d.data_dir.display().to_string()),
            ("--grace-secs", d.grace.as_secs().to_string()),
            ("--max-message-bytes", d.max_message_size.to_string()),
            ("--rate-limit", d.rate_limit_per_sec.to_string()),
            ("--rate-burst", d.rate_limit_burst.to_string()),
            ("--idle-secs", d.idle_timeout.as_secs().to_string()),
            ("--ping-secs", d.ping_interval.as_secs().to_string()),
            ("--max-rooms", d.max_rooms.to_string()),
            ("--max-connections", d.max_connections.to_string()),
            (
                "--max-connections-per-address",
                d.max_connections_per_address.to_string(),
            ),
            ("--queue", d.outgoing_queue.to_string()),
            ("--bot-think-ms", d.bot_think_cap.as_millis().to_string()),
            ("--linger-secs", d.finished_linger.as_secs().to_string()),
            (
                "--write-timeout-secs",
                d.write_timeout.as_secs().to_string(),
            ),
            ("--bot-threads", d.bot_threads.to_string()),
            (
                "--analysis-time-ms",
                d.analysis_time.as_millis().to_string(),
            ),
            ("--analysis-threads", d.analysis_threads.to_string()),
            ("--session-ttl-secs", d.session_ttl.as_secs().to_string()),
            (
                "--classic-db",
                "classic-15x15.db in the data directory".to_string(),
            ),
        ] {
            let line = help
                .lines()
                .skip_while(|l| !l.trim_start().starts_with(&format!("{flag} ")))
                .find(|l| l.contains("[default: "))
                .unwrap_or_else(|| panic!("no default for {flag} in\n{help}"));
            assert!(
                line.contains(&format!("[default: {default}]")),
                "{flag}: {line}"
            );
        }
    }

    #[test]
    fn flags_set_their_settings() {
        let cli = Cli::try_parse_from([
            "jchomp-server",
            "--grace-secs",
            "5",
            "--ping-secs",
            "0",
            "--bot-think-ms",
            "250",
            "--queue",
            "9",
            "--classic-db",
            "/srv/classic.db",
            "--analysis-time-ms",
            "0",
            "--analysis-threads",
            "3",
            "--bot-threads",
            "0",
            "--threads",
            "2",
        ])
        .unwrap();
        let s = cli.settings;
        assert_eq!(s.grace, Duration::from_secs(5));
        assert_eq!(s.ping_interval, Duration::from_secs(1));
        assert_eq!(s.bot_think_cap, Duration::from_millis(250));
        assert_eq!(s.outgoing_queue, 9);
        assert_eq!(s.classic_db_path(), PathBuf::from("/srv/classic.db"));
        assert_eq!(s.analysis_time, Duration::from_millis(1));
        assert_eq!(s.analysis_threads, 3);
        assert_eq!(s.bot_threads, 1);
        assert_eq!(s.max_rooms, Settings::default().max_rooms);
        assert_eq!(s.database, None);
        assert_eq!(cli.threads, Some(2));
    }

    #[test]
    fn bad_values_are_refused_in_words() {
        let err = Cli::try_parse_from(["jchomp-server", "--grace-secs", "soon"]).unwrap_err();
        assert!(err.to_string().contains("expected whole seconds"), "{err}");
        let err = Cli::try_parse_from(["jchomp-server", "--threads", "0"]).unwrap_err();
        assert!(err.to_string().contains("--threads"), "{err}");
    }

    #[test]
    fn allowed_origins_repeat_and_are_written_as_browsers_write_them() {
        let cli = Cli::try_parse_from([
            "jchomp-server",
            "--allowed-origin",
            "https://Play.Example.org/",
            "--allowed-origin",
            "http://10.0.0.5:8080",
        ])
        .unwrap();
        assert_eq!(
            cli.settings.allowed_origins,
            ["https://play.example.org", "http://10.0.0.5:8080"]
        );
        let err = Cli::try_parse_from(["jchomp-server", "--allowed-origin", "play.example.org"])
            .unwrap_err();
        assert!(
            err.to_string().contains("expected an origin such as"),
            "{err}"
        );
    }

    #[test]
    fn the_database_is_a_postgres_url_and_the_cluster_a_redis_one() {
        let cli = Cli::try_parse_from([
            "jchomp-server",
            "--database",
            "postgres://jchomp@127.0.0.1:5432/jchomp",
        ])
        .unwrap();
        assert_eq!(
            cli.settings.database.as_deref(),
            Some("postgres://jchomp@127.0.0.1:5432/jchomp")
        );
        let err = Cli::try_parse_from(["jchomp-server", "--database", "mysql://x"]).unwrap_err();
        assert!(err.to_string().contains("postgres://"), "{err}");
        let err = Cli::try_parse_from(["jchomp-server", "--cluster", "http://x"]).unwrap_err();
        assert!(err.to_string().contains("redis://"), "{err}");
    }
}
