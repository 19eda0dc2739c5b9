-- Which node runs each open match, until when. One node uses SQLite, but the arena speaks to
-- every store the same way.
CREATE TABLE match_leases (
    match_id INTEGER PRIMARY KEY,
    node TEXT NOT NULL,
    renewed_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE INDEX match_leases_by_node ON match_leases (node);

-- Jobs one node at a time does (auto-matching, sweeps), and which node does each until when.
CREATE TABLE duties (
    name TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
