-- A match's participants, in order: 2 to 8 of them rather than the two columns bot_a and bot_b.
-- Clustered by match, so a match's participants are one short range read with its row, and the
-- rows of new matches, whose ids only grow, are appended at the end of the table. They are
-- written once, when the match is created, and never change.
CREATE TABLE match_participants (
    match_id INTEGER NOT NULL,
    participant INTEGER NOT NULL,
    bot_id INTEGER NOT NULL,
    PRIMARY KEY (match_id, participant)
) WITHOUT ROWID;
-- A bot's matches, newest first: an index of a WITHOUT ROWID table carries the primary key, so
-- this is (bot_id, match_id, participant).
CREATE INDEX match_participants_by_bot ON match_participants (bot_id);

-- Every stored match keeps its two participants: bot_a was participant 0, bot_b participant 1.
INSERT INTO match_participants (match_id, participant, bot_id)
    SELECT id, 0, bot_a FROM matches
    UNION ALL
    SELECT id, 1, bot_b FROM matches;

-- SQLite drops a column only when no index uses it; these two served the per-bot listing that
-- match_participants_by_bot serves now. matches_open and matches_closed use status and id only.
DROP INDEX matches_by_bot_a;
DROP INDEX matches_by_bot_b;
ALTER TABLE matches DROP COLUMN bot_a;
ALTER TABLE matches DROP COLUMN bot_b;
