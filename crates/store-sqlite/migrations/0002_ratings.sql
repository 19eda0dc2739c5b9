-- Ratings: one row per bot and game mode, the rating and record as the rating system's JSON.
CREATE TABLE ratings (
    bot_id INTEGER NOT NULL,
    mode TEXT NOT NULL,
    rating TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (bot_id, mode)
) WITHOUT ROWID;
