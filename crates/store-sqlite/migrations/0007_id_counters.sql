-- The last id handed out of each kind. A reservation also looks past the largest id stored,
-- so rows written with ids of their own never get a reserved id again.
CREATE TABLE id_counters (
    kind TEXT PRIMARY KEY,
    last INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO id_counters (kind, last) VALUES
    ('bot', (SELECT coalesce(max(id), 0) FROM bots)),
    ('match', (SELECT coalesce(max(id), 0) FROM matches)),
    ('account', max((SELECT coalesce(max(id), 0) FROM accounts),
                    (SELECT coalesce(max(id), 0) FROM deleted_accounts)));
