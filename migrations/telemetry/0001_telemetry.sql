-- telemetry 0001: the search telemetry, in its own database file.
--
-- Why a second file: every commit to a database makes each reader
-- connection drop its page cache and memory map at its next read, so a
-- telemetry row written per search in the main file made the next search
-- re-read every vector (about 55 ms at 100k chunks). Searches never read
-- these tables; writes here leave the main file's readers warm.

-- rag_searches: one row per search. weights is a JSON copy of the fusion
-- settings at search time ({vector, lexical, threshold, fusion, ...}), frozen
-- so that changing a setting later never changes what old rows mean.
-- session_id NULL means the search came from outside a session: information,
-- not missing data. degraded and vector_available are two columns on purpose.
CREATE TABLE rag_searches (
    id               INTEGER PRIMARY KEY,
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

CREATE INDEX rag_searches_time ON rag_searches (created_at);

-- rag_feedback: one verdict per (search, chunk); a re-vote replaces it. The
-- chunk must have been among the search's hits; rank is copied from them.
-- A vote goes with its chunk when a reindex changes or removes the chunk: the
-- store deletes it (a foreign key cannot cross database files).
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
