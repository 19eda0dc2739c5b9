-- Tournaments: few and small, so each is one row, rewritten whole at each change; what the
-- arena keeps of one beyond its status and times is JSON text, as written.
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    status TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    data TEXT NOT NULL
);

-- Tournaments' ids are reserved like the others': a reservation and `IdsTaken` update this
-- row, and a kind without one would take neither. It starts past the largest id stored, as
-- the other kinds' rows did when `0007_id_counters.sql` added them.
INSERT INTO id_counters (kind, last) VALUES
    ('tournament', (SELECT coalesce(max(id), 0) FROM tournaments));

-- The tournaments still to be driven are read by their status at every heartbeat.
CREATE INDEX tournaments_by_status ON tournaments (status, id);
