-- Finished game records, one row per game: `record` is the record's JSON (docs/RECORDS.md),
-- kept as text exactly as the server wrote it. `seq` orders games newest last; `id` is the
-- room id, unique, so that a record delivered twice is stored once.
CREATE TABLE games (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL,
    stored_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
