-- Post-game analyses (issue 29): one row per analysed game, running or finished (the cache).
-- Keep in step with ../postgres.
--
-- `request` is who asked and where, with the outbox key of the progress line, as JSON
-- (bot_core::analysis::AnalysisRequest); `result` is the finished analysis as JSON
-- (bot_core::analysis::GameAnalysis), NULL while it runs. A running row whose `updated_ms`
-- is old belongs to a process that stopped: a new start may take it over.
CREATE TABLE analyses (
    game_id    INTEGER NOT NULL PRIMARY KEY REFERENCES games (id),
    plies      INTEGER NOT NULL,
    owner      TEXT    NOT NULL,
    request    TEXT    NOT NULL,
    done       INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    result     TEXT,
    started_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
