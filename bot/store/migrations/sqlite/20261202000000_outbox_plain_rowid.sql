-- The outbox's `seq` as a plain rowid, without AUTOINCREMENT (SQLite only; PostgreSQL's
-- identity column needs nothing).
--
-- AUTOINCREMENT made every post also update the `sqlite_sequence` table: one more page in the
-- write-ahead log for every move (issue 27's benchmark). Without it SQLite gives a new row
-- the largest `seq` plus one, which keeps what the senders rely on: an entry posted later
-- has a larger `seq` than every entry still in the table. (A number may come back only after
-- the newest entries were deleted, seven days after they were settled; entries are found by
-- `entry_key`, never by a remembered `seq`.)
CREATE TABLE outbox_plain (
    seq            INTEGER PRIMARY KEY,
    entry_key      TEXT    NOT NULL,
    platform       TEXT    NOT NULL,
    body           TEXT    NOT NULL,
    posted_ms      INTEGER NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    not_before_ms  INTEGER NOT NULL DEFAULT 0,
    claim_owner    TEXT,
    claim_until_ms INTEGER,
    state          TEXT    NOT NULL DEFAULT 'waiting',
    detail         TEXT,
    settled_ms     INTEGER
);
INSERT INTO outbox_plain (seq, entry_key, platform, body, posted_ms, attempts, not_before_ms,
                          claim_owner, claim_until_ms, state, detail, settled_ms)
    SELECT seq, entry_key, platform, body, posted_ms, attempts, not_before_ms, claim_owner,
           claim_until_ms, state, detail, settled_ms
    FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_plain RENAME TO outbox;
CREATE INDEX outbox_waiting ON outbox (platform, seq) WHERE state = 'waiting';
CREATE UNIQUE INDEX outbox_by_key ON outbox (entry_key);
