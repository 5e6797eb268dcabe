-- 0001: the whole schema of SPEC.md, except the vec0 table and the telemetry
-- (see migrations.go).

-- meta holds facts about the database itself, e.g. the embedding space its
-- vectors belong to.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- projects: one registered git repository each. name is the short public id.
CREATE TABLE projects (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    path         TEXT NOT NULL UNIQUE,
    auto_reindex INTEGER NOT NULL DEFAULT 0 CHECK (auto_reindex IN (0, 1)),
    created_at   TEXT NOT NULL
) STRICT;

-- chunks: the citable unit. id is stable across reindexes (derived from the
-- source, the position and the content), seq is SQLite's rowid, shared with
-- the FTS5 and vec0 tables.
CREATE TABLE chunks (
    seq             INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    project_id      INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope           TEXT NOT NULL CHECK (scope IN ('docs', 'adr', 'session')),
    source_path     TEXT,            -- docs/adr: path in the repository
    source_commit   TEXT,            -- docs/adr: commit the text was read from
    session_id      TEXT,            -- session: the session
    event_id        TEXT,            -- session: the source event
    heading_path    TEXT NOT NULL DEFAULT '[]',  -- JSON array of headings
    title           TEXT NOT NULL DEFAULT '',
    position        INTEGER NOT NULL CHECK (position >= 0),
    start_offset    INTEGER NOT NULL DEFAULT 0,
    end_offset      INTEGER NOT NULL DEFAULT 0,
    content         TEXT NOT NULL,
    content_hash    TEXT NOT NULL,
    embedding_space TEXT,            -- NULL: no vector (lexical only)
    indexed_at      TEXT NOT NULL,
    CHECK ((scope = 'session') = (session_id IS NOT NULL AND event_id IS NOT NULL)),
    CHECK ((scope = 'session') = (source_path IS NULL))
) STRICT;

CREATE INDEX chunks_project_scope ON chunks (project_id, scope, source_path);
CREATE INDEX chunks_session ON chunks (project_id, session_id);

-- chunks_fts: bm25 over the document title, the heading path and the text,
-- kept in step with chunks by the triggers below (external content: the text
-- is stored once). The title and headings name what every chunk of a section
-- is about, though only the first chunk holds the heading line itself.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    title,
    heading_path,
    content,
    content = 'chunks',
    content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, heading_path, content)
    VALUES (new.seq, new.title, new.heading_path, new.content);
END;

CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, heading_path, content)
    VALUES ('delete', old.seq, old.title, old.heading_path, old.content);
END;

-- Only when the indexed text really changed: a reindex updates kept rows with
-- the same heading path, and re-indexing their text would be wasted work.
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF title, heading_path, content ON chunks
WHEN old.title IS NOT new.title OR old.heading_path IS NOT new.heading_path OR old.content IS NOT new.content BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, heading_path, content)
    VALUES ('delete', old.seq, old.title, old.heading_path, old.content);
    INSERT INTO chunks_fts (rowid, title, heading_path, content)
    VALUES (new.seq, new.title, new.heading_path, new.content);
END;

-- sessions and their events: the conversation log. Every event type is kept;
-- only chat.message and agent.response become chunks.
CREATE TABLE sessions (
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (project_id, id)
) STRICT;

CREATE TABLE session_events (
    seq        INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    id         TEXT NOT NULL,
    type       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    text       TEXT NOT NULL DEFAULT '',
    payload    TEXT,                 -- raw JSON, NULL when absent
    time       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (project_id, id),
    FOREIGN KEY (project_id, session_id) REFERENCES sessions (project_id, id) ON DELETE CASCADE
) STRICT;

CREATE INDEX session_events_session ON session_events (project_id, session_id, time);

-- index_runs: one row per reindex of one scope, with its report.
CREATE TABLE index_runs (
    id            INTEGER PRIMARY KEY,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope         TEXT NOT NULL CHECK (scope IN ('docs', 'adr', 'session')),
    status        TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
    source_commit TEXT,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    report        TEXT NOT NULL DEFAULT '{}'   -- JSON index report
) STRICT;

CREATE INDEX index_runs_scope ON index_runs (project_id, scope, status, id);

-- embedding_cache: vectors by (embedding space, hash of the exact text sent),
-- so a reindex of unchanged text makes no provider call.
CREATE TABLE embedding_cache (
    space      TEXT NOT NULL,
    key        TEXT NOT NULL,
    vector     BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (space, key)
) STRICT, WITHOUT ROWID;
