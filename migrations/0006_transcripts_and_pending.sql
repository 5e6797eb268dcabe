-- 0006: the transcript importer's tables and the queue of chunks without a
-- vector, which store.Open created with IF NOT EXISTS while the migrations
-- before them were written on other branches (the runner wants versions
-- without gaps). IF NOT EXISTS stays: a database opened since has them.

-- transcript_files: where the importer stopped reading each transcript
-- file, per project (a checkpoint is only valid for the project it was
-- read into, and goes with it).
CREATE TABLE IF NOT EXISTS transcript_files (
    path       TEXT NOT NULL,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    format     TEXT NOT NULL,
    size       INTEGER NOT NULL,   -- bytes when read
    mtime_ns   INTEGER NOT NULL,   -- modification time when read
    checkpoint TEXT NOT NULL,      -- JSON transcript.Checkpoint
    updated_at TEXT NOT NULL,
    PRIMARY KEY (path, project_id)
) STRICT;

-- forgotten_sessions: sessions forgotten on purpose, never imported again.
CREATE TABLE IF NOT EXISTS forgotten_sessions (
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    session_id   TEXT NOT NULL,
    forgotten_at TEXT NOT NULL,
    PRIMARY KEY (project_id, session_id)
) STRICT;

-- chunks_without_vector: the background fill's queue, newest first, cheap
-- to read however large the index (docs/adr/0009-scale.md).
CREATE INDEX IF NOT EXISTS chunks_without_vector ON chunks (seq) WHERE embedding_space IS NULL;
