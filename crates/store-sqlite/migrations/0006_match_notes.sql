-- Notes about matches for the operator alone (where a seat's player came from, suspicions
-- about its play), in the order they were added; never shown to players or spectators.
CREATE TABLE match_notes (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL,
    participant INTEGER,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);

CREATE INDEX match_notes_by_match ON match_notes (match_id, id);
