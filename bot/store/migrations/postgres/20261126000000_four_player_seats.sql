-- Games with more than two seats (issue 14). Keep in step with ../sqlite.
--
-- A challenge to several players: `challenges.challenged_*` stays the first invitee (so a
-- two-player challenge, and every challenge stored before, reads as it did), and this table
-- lists every invitee of a challenge to more than one player, in seat order from 1, with the
-- time each accepted (NULL while he has not). The game starts when none is NULL.
CREATE TABLE challenge_invitees (
    challenge_id BIGINT  NOT NULL REFERENCES challenges (id),
    seat         BIGINT  NOT NULL,
    platform     TEXT    NOT NULL,
    user_id      TEXT    NOT NULL,
    accepted_at  BIGINT,
    PRIMARY KEY (challenge_id, seat)
);
CREATE INDEX challenge_invitees_by_player ON challenge_invitees (platform, user_id);

-- An offer in a game of more than two seats needs several answers: the seats that have agreed
-- so far, as a bit mask (seat n is bit n). 0 for every offer stored before, which is right:
-- a two-seat offer is settled by its one answer.
ALTER TABLE games ADD COLUMN offer_agreed BIGINT NOT NULL DEFAULT 0;
