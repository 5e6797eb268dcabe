-- telemetry 0002: search ids are never reused.
--
-- rag_searches.id was a plain INTEGER PRIMARY KEY, which SQLite may hand out
-- again once the highest rows are deleted (by `ragd remove`): a vote for an
-- old id could then land on a new search. AUTOINCREMENT keeps the highest id
-- ever used in sqlite_sequence and never goes below it. SQLite cannot add it
-- to an existing table, so the table is rebuilt, keeping every row and id.
--
-- rag_feedback references rag_searches with ON DELETE CASCADE, and dropping
-- the old table would delete every vote: the votes wait in a plain copy
-- while both tables are rebuilt, then come back unchanged.

CREATE TABLE rag_feedback_keep AS SELECT * FROM rag_feedback;
DROP TABLE rag_feedback;

CREATE TABLE rag_searches_new (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id       INTEGER,                      -- projects.id in the main database
    query            TEXT NOT NULL,
    scopes           TEXT NOT NULL DEFAULT '[]',  -- JSON array
    hits             TEXT NOT NULL DEFAULT '[]',  -- JSON [{chunkId, rank, score, ...}], rank 1-based
    weights          TEXT NOT NULL,               -- JSON, frozen
    degraded         INTEGER NOT NULL CHECK (degraded IN (0, 1)),
    vector_available INTEGER NOT NULL CHECK (vector_available IN (0, 1)),
    latency_ms       REAL NOT NULL,
    actor            TEXT NOT NULL,
    session_id       TEXT,
    purpose          TEXT NOT NULL DEFAULT 'search' CHECK (purpose IN ('search', 'eval')),
    created_at       TEXT NOT NULL
) STRICT;

INSERT INTO rag_searches_new (id, project_id, query, scopes, hits, weights, degraded, vector_available,
    latency_ms, actor, session_id, purpose, created_at)
SELECT id, project_id, query, scopes, hits, weights, degraded, vector_available,
    latency_ms, actor, session_id, purpose, created_at
FROM rag_searches;

DROP TABLE rag_searches;
ALTER TABLE rag_searches_new RENAME TO rag_searches;
CREATE INDEX rag_searches_time ON rag_searches (created_at);

CREATE TABLE rag_feedback (
    search_id  INTEGER NOT NULL REFERENCES rag_searches(id) ON DELETE CASCADE,
    chunk_id   TEXT NOT NULL,   -- chunks.id in the main database
    rank       INTEGER NOT NULL CHECK (rank >= 1),
    verdict    TEXT NOT NULL CHECK (verdict IN ('useful', 'irrelevant')),
    actor      TEXT NOT NULL,
    session_id TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (search_id, chunk_id)
) STRICT;

CREATE INDEX rag_feedback_chunk ON rag_feedback (chunk_id);

INSERT INTO rag_feedback (search_id, chunk_id, rank, verdict, actor, session_id, created_at)
SELECT search_id, chunk_id, rank, verdict, actor, session_id, created_at
FROM rag_feedback_keep;

DROP TABLE rag_feedback_keep;
