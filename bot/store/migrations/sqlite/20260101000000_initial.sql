-- fairybot store, SQLite schema. Keep in step with ../postgres (a test compares the columns).
-- Integers are INTEGER (i64 under sqlx Any: no bool), times are unix seconds, enums are TEXT.

-- Players: one row per platform user, created on first sight.
CREATE TABLE players (
    platform     TEXT    NOT NULL,
    user_id      TEXT    NOT NULL,
    display_name TEXT    NOT NULL,
    theme        TEXT,
    notation     TEXT    NOT NULL CHECK (notation IN ('san', 'coordinate')),
    text_board   INTEGER NOT NULL CHECK (text_board IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id)
) WITHOUT ROWID;

-- Games: everything but the seats and the moves. `version` is the optimistic-concurrency
-- counter every write checks and bumps.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    variant     TEXT    NOT NULL,
    options     TEXT    NOT NULL,
    start_state TEXT    NOT NULL,
    platform    TEXT    NOT NULL,
    room        TEXT    NOT NULL,
    thread      TEXT,
    status      TEXT    NOT NULL CHECK (status IN ('active', 'finished', 'aborted')),
    result      TEXT,
    reason      TEXT,
    offer_kind  TEXT    CHECK (offer_kind IN ('draw', 'takeback')),
    offer_seat  INTEGER,
    version     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    CHECK ((status = 'finished') = (result IS NOT NULL AND reason IS NOT NULL)),
    CHECK ((offer_kind IS NULL) = (offer_seat IS NULL))
);
CREATE INDEX games_by_place ON games (platform, room, thread);

-- Seats: the players of a game in turn order; its own table so "games of a player" is an
-- indexed lookup.
CREATE TABLE seats (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seat     INTEGER NOT NULL,
    platform TEXT    NOT NULL,
    user_id  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX seats_by_player ON seats (platform, user_id);

-- Moves: the source of truth of every game, one row per ply (0-based, no gaps).
CREATE TABLE moves (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    ply        INTEGER NOT NULL,
    mv         TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

-- Challenges: `game_id` is set exactly when the status is 'accepted'.
CREATE TABLE challenges (
    id                  INTEGER PRIMARY KEY,
    challenger_platform TEXT    NOT NULL,
    challenger_user     TEXT    NOT NULL,
    challenged_platform TEXT,
    challenged_user     TEXT,
    variant             TEXT    NOT NULL,
    options             TEXT    NOT NULL,
    platform            TEXT    NOT NULL,
    room                TEXT    NOT NULL,
    thread              TEXT,
    status              TEXT    NOT NULL
        CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled', 'expired')),
    game_id             INTEGER REFERENCES games (id),
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    CHECK ((status = 'accepted') = (game_id IS NOT NULL)),
    CHECK ((challenged_platform IS NULL) = (challenged_user IS NULL))
);
CREATE INDEX challenges_by_place ON challenges (platform, room, thread);
CREATE INDEX challenges_by_challenger ON challenges (challenger_platform, challenger_user);
CREATE INDEX challenges_by_challenged ON challenges (challenged_platform, challenged_user);
