-- Bots: registered, anonymous and house principals.
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    token_hash TEXT UNIQUE,
    token_prefix TEXT,
    created_ms INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL,
    disabled INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    profile TEXT NOT NULL
);

-- Matches: the row to find and rebuild a match; its progress is its event log.
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    bot_a INTEGER NOT NULL,
    bot_b INTEGER NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    seed TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX matches_open ON matches (status) WHERE status IN ('pending', 'running');
CREATE INDEX matches_by_bot_a ON matches (bot_a, id);
CREATE INDEX matches_by_bot_b ON matches (bot_b, id);

-- The per-match event log; audience NULL means everyone, otherwise a participant index.
-- Rows are appended in rowid order, so a commit writes mostly new pages at the end of the
-- table; the small (match_id, seq) index finds a match's events. Clustering the table by
-- (match_id, seq) instead would dirty one table page per match in every commit.
CREATE TABLE match_events (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    audience INTEGER,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE UNIQUE INDEX match_events_by_match ON match_events (match_id, seq);

-- Single values about the server itself (the last heartbeat).
CREATE TABLE server_state (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
