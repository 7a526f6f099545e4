-- Glicko-2 ratings (issue 16). Keep in step with ../postgres.
--
-- The family a game is rated in, fixed when the game is created (NULL: unrated, as every
-- game stored before ratings is).
ALTER TABLE games ADD COLUMN rating_family TEXT;

-- One row per player and rating family: the Glicko-2 triple and the rated games' tally.
-- Written only in the transaction that finishes a rated game.
CREATE TABLE ratings (
    platform   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    family     TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id, family)
) WITHOUT ROWID;
CREATE INDEX ratings_by_family ON ratings (family, platform, rating);

-- What each rated game did to each seat's rating. Its key is the exactly-once guard: a game
-- whose rows exist is never rated again, whatever writes it later.
CREATE TABLE rating_changes (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    platform   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    family     TEXT    NOT NULL,
    rating_before REAL    NOT NULL,
    rating_after  REAL    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
