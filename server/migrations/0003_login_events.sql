-- The login throttle's events when accounts are in PostgreSQL, so that every node of a cluster
-- counts the same attempts: `kind` is 'failure' (a failed login of account `key`) or
-- 'attempt' (a login or registration from address `key`); `at_ms` is when, in milliseconds
-- since the Unix epoch. Events older than the longest window are deleted as new ones come.
CREATE TABLE login_events (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
CREATE INDEX login_events_by_key ON login_events (kind, key, at_ms);
CREATE INDEX login_events_by_time ON login_events (at_ms);
