-- Accounts, their tokens and ratings, shared by every node of a cluster (the same tables as
-- the embedded store's). Times are milliseconds since the epoch; kinds are the names the
-- server writes (`person`, `bot`, `built_in`; `session`, `bot`).

-- One row per account, under its key (the name in lower case: names are unique ignoring case).
-- A deleted account keeps its row (its name stays taken) without a password.
CREATE TABLE accounts (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('person', 'bot', 'built_in')),
    owner TEXT,
    password TEXT,
    deleted BOOLEAN NOT NULL DEFAULT false,
    created_ms BIGINT NOT NULL
);
CREATE INDEX accounts_owner ON accounts (owner) WHERE owner IS NOT NULL;

-- Session and bot API tokens, under their SHA-256 hash (the token itself is never stored).
-- No expiry: a bot's token lasts until revoked.
CREATE TABLE account_tokens (
    hash TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('session', 'bot')),
    expires_ms BIGINT
);
CREATE INDEX account_tokens_account ON account_tokens (account);

-- Each account's rating in each category it played rated.
CREATE TABLE ratings (
    account TEXT NOT NULL,
    category TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    wins BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    ties BIGINT NOT NULL,
    last_ms BIGINT NOT NULL,
    PRIMARY KEY (account, category)
);
CREATE INDEX ratings_category ON ratings (category);

-- A rating after each rated game.
CREATE TABLE rating_history (
    account TEXT NOT NULL,
    category TEXT NOT NULL,
    when_ms BIGINT NOT NULL,
    game TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'tie')),
    PRIMARY KEY (account, category, when_ms, game)
);

-- The rated games already counted, each once: written in the transaction that inserts the
-- game's record into `games`.
CREATE TABLE rated_games (
    game TEXT PRIMARY KEY,
    category TEXT NOT NULL
);
