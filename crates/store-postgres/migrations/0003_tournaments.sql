-- Tournaments: few and small, so each is one row, rewritten whole at each change; what the
-- arena keeps of one beyond its status and times is JSON kept as text, as written.
CREATE TABLE tournaments (
    id BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    data TEXT NOT NULL
);

-- Tournaments' ids are reserved like the others': a reservation and `IdsTaken` update this
-- row, and a kind without one would take neither. The table is new, so no id is taken yet.
INSERT INTO id_counters (kind, last) VALUES ('tournament', 0);

-- The tournaments still to be driven are read by their status at every heartbeat.
CREATE INDEX tournaments_by_status ON tournaments (status, id);
