-- The same records as the SQLite store keeps, in PostgreSQL's types. JSON is kept as text, as
-- written: the arena reads it back as it wrote it, and jsonb would reorder keys and renumber.

-- Bots: registered, anonymous, house and human principals.
CREATE TABLE bots (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    token_hash TEXT UNIQUE,
    token_prefix TEXT,
    created_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    disabled BOOLEAN NOT NULL,
    deleted BOOLEAN NOT NULL,
    profile TEXT NOT NULL
);

-- Matches: the row to find and rebuild a match; its progress is its event log.
CREATE TABLE matches (
    id BIGINT PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    seed TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX matches_open ON matches (id) WHERE status IN ('pending', 'running');
CREATE INDEX matches_closed ON matches (id) WHERE status NOT IN ('pending', 'running');

-- A match's participants, in order; written once, when the match is created.
CREATE TABLE match_participants (
    match_id BIGINT NOT NULL,
    participant SMALLINT NOT NULL,
    bot_id BIGINT NOT NULL,
    PRIMARY KEY (match_id, participant)
);
CREATE INDEX match_participants_by_bot ON match_participants (bot_id, match_id);

-- The per-match event log; audience NULL means everyone, otherwise a participant index.
CREATE TABLE match_events (
    match_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    audience SMALLINT,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- Notes about matches for the operator alone, in the order they were added.
CREATE TABLE match_notes (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    match_id BIGINT NOT NULL,
    participant SMALLINT,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
CREATE INDEX match_notes_by_match ON match_notes (match_id, id);

-- Single values about the server itself (the last heartbeat).
CREATE TABLE server_state (
    key TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);

-- Ratings: one row per bot and game mode, as the rating system's JSON.
CREATE TABLE ratings (
    bot_id BIGINT NOT NULL,
    mode TEXT NOT NULL,
    rating TEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (bot_id, mode)
);

-- Accounts of the web pages: the name people sign in with and their password's Argon2id hash.
CREATE TABLE accounts (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

-- The ids of deleted accounts, never handed out again.
CREATE TABLE deleted_accounts (
    id BIGINT PRIMARY KEY
);

-- Signed-in browsers, by the SHA-256 of their session cookie.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);

-- Bots' pictures, re-encoded as PNG by the server.
CREATE TABLE bot_photos (
    bot_id BIGINT PRIMARY KEY,
    png BYTEA NOT NULL,
    updated_ms BIGINT NOT NULL
);

-- The last id handed out of each kind. A reservation also looks past the largest id stored,
-- so rows written with ids of their own never get a reserved id again; the row's lock makes
-- nodes that reserve at once take turns.
CREATE TABLE id_counters (
    kind TEXT PRIMARY KEY,
    last BIGINT NOT NULL
);
INSERT INTO id_counters (kind, last) VALUES ('bot', 0), ('match', 0), ('account', 0);
