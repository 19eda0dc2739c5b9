-- Which node runs each open match, until when: a node renews its leases while it lives, and
-- another takes over the matches whose lease lapsed.
CREATE TABLE match_leases (
    match_id BIGINT PRIMARY KEY,
    node TEXT NOT NULL,
    renewed_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX match_leases_by_node ON match_leases (node);

-- Jobs one node at a time does (auto-matching, sweeps), and which node does each until when.
CREATE TABLE duties (
    name TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);
