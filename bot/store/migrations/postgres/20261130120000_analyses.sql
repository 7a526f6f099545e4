-- Post-game analyses (issue 29): one row per analysed game, running or finished (the cache).
-- Keep in step with ../sqlite.
--
-- `request` is who asked and where, with the outbox key of the progress line, as JSON
-- (bot_core::analysis::AnalysisRequest); `result` is the finished analysis as JSON
-- (bot_core::analysis::GameAnalysis), NULL while it runs. A running row whose `updated_ms`
-- is old belongs to a process that stopped: a new start may take it over.
CREATE TABLE analyses (
    game_id    BIGINT  NOT NULL PRIMARY KEY REFERENCES games (id),
    plies      BIGINT  NOT NULL,
    owner      TEXT    NOT NULL,
    request    TEXT    NOT NULL,
    done       BIGINT  NOT NULL,
    total      BIGINT  NOT NULL,
    result     TEXT,
    started_ms BIGINT  NOT NULL,
    updated_ms BIGINT  NOT NULL
);
