-- Private messages a platform would not deliver (closed DMs, the platform failing), held for
-- their player until he next asks (issue 18 item 5). Keep in step with ../postgres.
--
-- The id orders a player's messages (oldest first) and picks the ones past the cap to drop.
-- No board is stored: it is drawn anew from the game when the message is shown.
CREATE TABLE held_messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    platform   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    game_id    INTEGER,
    body       TEXT    NOT NULL,
    -- The mentioned players' ids on the recipient's platform, one per line.
    mentions   TEXT    NOT NULL,
    with_board INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX held_messages_by_player ON held_messages (platform, user_id, id);
