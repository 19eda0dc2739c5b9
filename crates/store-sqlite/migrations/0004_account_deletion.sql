-- Every session of one account is ended at once (a new password, signing out everywhere,
-- deleting the account), so sessions are found by account too.
CREATE INDEX sessions_by_account ON sessions (account_id);

-- The ids of deleted accounts. Bots and people's participants name their owner by account
-- id, so a deleted account's id is never handed out again.
CREATE TABLE deleted_accounts (
    id INTEGER PRIMARY KEY
);
