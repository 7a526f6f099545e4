-- The outbox: every reply, announcement and private report, stored before it is sent (see
-- bot_core::outbox). Keep in step with ../postgres.
--
-- `seq` orders the entries (oldest first); `entry_key` is the entry's own id, unique, and the
-- platform's idempotency key (Matrix transaction id, Discord nonce). `body` is the envelope
-- as JSON (room, origin, reply). An entry is due for a sender while `state` is 'waiting',
-- `not_before_ms` has passed and it is unclaimed or its claim has run out.
CREATE TABLE outbox (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_key      TEXT    NOT NULL,
    platform       TEXT    NOT NULL,
    body           TEXT    NOT NULL,
    posted_ms      INTEGER NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    not_before_ms  INTEGER NOT NULL DEFAULT 0,
    claim_owner    TEXT,
    claim_until_ms INTEGER,
    -- 'waiting', 'delivered' or 'given_up' (with the reason in `detail`).
    state          TEXT    NOT NULL DEFAULT 'waiting',
    detail         TEXT,
    settled_ms     INTEGER
);
-- What a sender looks through: only the waiting entries.
CREATE INDEX outbox_waiting ON outbox (platform, seq) WHERE state = 'waiting';
-- Keys are unique: a post repeated with the same key finds its entry.
CREATE UNIQUE INDEX outbox_by_key ON outbox (entry_key);
