-- Players' own variants (bot_core::custom; issue 30). Keep in step with ../sqlite.
--
-- `variant_definitions` holds every definition a game may play, by the SHA-256 of its text
-- (hex): rows are written once and never deleted, so a game that stored a hash replays with
-- the same rules after its variant was edited or removed. `custom_variants` is each scope's
-- library (a Discord server, a Matrix room, the console): a name per scope, its author, the
-- text as uploaded and the hash of the definition games play.
CREATE TABLE variant_definitions (
    hash        TEXT    NOT NULL PRIMARY KEY,
    definition  TEXT    NOT NULL
);
CREATE TABLE custom_variants (
    scope       TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    author      TEXT    NOT NULL,
    format      TEXT    NOT NULL,
    source      TEXT    NOT NULL,
    hash        TEXT    NOT NULL REFERENCES variant_definitions (hash),
    added_ms    BIGINT  NOT NULL,
    PRIMARY KEY (scope, name)
);
