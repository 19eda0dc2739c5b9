-- Accounts of the web pages: the name people sign in with and their password's Argon2id hash.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);

-- Signed-in browsers, by the SHA-256 of their session cookie.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- Bots' pictures, re-encoded as PNG by the server.
CREATE TABLE bot_photos (
    bot_id INTEGER PRIMARY KEY,
    png BLOB NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- Closed matches, newest first, for the home page and bot profiles.
CREATE INDEX matches_closed ON matches (id) WHERE status NOT IN ('pending', 'running');
