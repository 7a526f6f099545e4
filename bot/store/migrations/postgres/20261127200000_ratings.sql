-- Glicko-2 ratings (issue 16). Keep in step with ../sqlite.
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
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT  NOT NULL,
    wins       BIGINT  NOT NULL,
    draws      BIGINT  NOT NULL,
    losses     BIGINT  NOT NULL,
    updated_at BIGINT  NOT NULL,
    PRIMARY KEY (platform, user_id, family)
);
CREATE INDEX ratings_by_family ON ratings (family, platform, rating);

-- What each rated game did to each seat's rating. Its key is the exactly-once guard: a game
-- whose rows exist is never rated again, whatever writes it later.
CREATE TABLE rating_changes (
    game_id    BIGINT  NOT NULL REFERENCES games (id),
    seat       BIGINT  NOT NULL,
    platform   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    family     TEXT    NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    rating_after  DOUBLE PRECISION NOT NULL,
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (game_id, seat)
);
