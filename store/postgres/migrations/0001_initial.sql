-- 0001: the whole schema of the PostgreSQL engine (store/postgres), for
-- every owner of a team: what the SQLite engine keeps in its two files
-- (migrations/ at the repository root), with the owner of each person's
-- rows.
--
-- Not here: the vector column. Its dimensions are the database's embedding
-- space, chosen at the first Open: Open adds chunks.embedding vector(dims)
-- and its HNSW index, and records the space in meta (see postgres.go).
--
-- Times are timestamptz (microseconds), except session_events.time, kept
-- as text in ragd's fixed-width RFC 3339 nanosecond layout (UTC, so text
-- order is time order): an event's time is part of its identity (a
-- re-appended event is compared field by field), and a microsecond column
-- would round it.

CREATE EXTENSION IF NOT EXISTS vector;

-- meta: facts about the database itself: the embedding space ('space') and
-- its vector length ('dims').
CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- projects: one per name, shared by every owner who adds that name. The
-- lexical settings and the layout are the shared index's.
CREATE TABLE projects (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    language         text NOT NULL DEFAULT '',  -- the setting; '' detects it
    lexical_language text NOT NULL DEFAULT '',  -- what tsv is analysed with; '' until the first chunk
    layout           text NOT NULL DEFAULT '',  -- JSON ragd.Layout, '' for none
    created_at       timestamptz NOT NULL DEFAULT now()
);

-- project_paths: each owner's checkout of a project, and whether that
-- owner's daemon reindexes it on its own.
CREATE TABLE project_paths (
    project_id   bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    owner        text NOT NULL,
    path         text NOT NULL,
    auto_reindex boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, owner),
    UNIQUE (owner, path)
);

-- chunks: the citable unit. id is stable across reindexes (ragd.ChunkID);
-- seq orders the writes and names a chunk to the background fill. owner is
-- '' for docs and adr chunks (everyone's) and the session's owner for
-- session chunks, which a snapshot returns only to their owner unless
-- shared. tsv holds the text as package lexical analyses it in the
-- project's language (title, headings, content, weighted A, B, D), indexed
-- with the 'simple' configuration so that PostgreSQL adds no analysis of
-- its own.
CREATE TABLE chunks (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    project_id      bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope           text NOT NULL CHECK (scope IN ('docs', 'adr', 'session')),
    source_path     text,            -- docs/adr: path in the repository
    source_commit   text,            -- docs/adr: commit the text was read from
    session_id      text,            -- session: the session
    event_id        text,            -- session: the source event
    owner           text NOT NULL DEFAULT '',
    shared          boolean NOT NULL DEFAULT false,
    heading_path    text NOT NULL DEFAULT '[]',  -- JSON array of headings
    title           text NOT NULL DEFAULT '',
    position        integer NOT NULL CHECK (position >= 0),
    start_offset    integer NOT NULL DEFAULT 0,
    end_offset      integer NOT NULL DEFAULT 0,
    content         text NOT NULL,
    content_hash    text NOT NULL,
    tsv             tsvector NOT NULL DEFAULT ''::tsvector,
    embedding_space text,            -- NULL: no vector (lexical only)
    indexed_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((scope = 'session') = (session_id IS NOT NULL AND event_id IS NOT NULL)),
    CHECK ((scope = 'session') = (source_path IS NULL))
);

CREATE INDEX chunks_project_scope ON chunks (project_id, scope, source_path);
CREATE INDEX chunks_session_event ON chunks (project_id, session_id, event_id);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
-- The background fill's queue, newest first, cheap however large the index.
CREATE INDEX chunks_without_vector ON chunks (seq) WHERE embedding_space IS NULL;

-- unembeddable_chunks: chunks the embedding model refused for good, for
-- one space; the fill stops asking for them.
CREATE TABLE unembeddable_chunks (
    chunk_seq       bigint PRIMARY KEY REFERENCES chunks(seq) ON DELETE CASCADE,
    embedding_space text NOT NULL,
    content_hash    text NOT NULL,
    reason          text NOT NULL,
    marked_at       timestamptz NOT NULL DEFAULT now()
);

-- sessions and their events: each owner's conversation log.
CREATE TABLE sessions (
    project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    id         text NOT NULL,
    owner      text NOT NULL,
    shared     boolean NOT NULL DEFAULT false,
    title      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, id)
);

CREATE INDEX sessions_owner ON sessions (project_id, owner);

CREATE TABLE session_events (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id bigint NOT NULL,
    session_id text NOT NULL,
    id         text NOT NULL,
    owner      text NOT NULL,
    type       text NOT NULL,
    actor      text NOT NULL,
    text       text NOT NULL DEFAULT '',
    payload    text,                 -- raw JSON, verbatim; NULL when absent
    time       text NOT NULL,        -- fixed-width RFC 3339 nanoseconds, UTC
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, id),
    FOREIGN KEY (project_id, session_id) REFERENCES sessions (project_id, id) ON DELETE CASCADE
);

CREATE INDEX session_events_session ON session_events (project_id, session_id, time);

-- transcript_files: where each owner's importer stopped reading each of its
-- transcript files (a path is the owner's machine's), per project.
CREATE TABLE transcript_files (
    project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    owner      text NOT NULL,
    path       text NOT NULL,
    format     text NOT NULL,
    size       bigint NOT NULL,      -- bytes when read
    mtime_ns   bigint NOT NULL,      -- modification time when read
    checkpoint text NOT NULL,        -- JSON transcript.Checkpoint
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, owner, path)
);

-- forgotten_sessions: sessions forgotten on purpose, never imported again.
CREATE TABLE forgotten_sessions (
    project_id   bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    session_id   text NOT NULL,
    owner        text NOT NULL,
    forgotten_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, session_id)
);

-- index_runs: one row per reindex of one scope, with its report; owner is
-- whose daemon ran it.
CREATE TABLE index_runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id    bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope         text NOT NULL CHECK (scope IN ('docs', 'adr', 'session')),
    owner         text NOT NULL,
    status        text NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
    source_commit text,
    started_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    report        text NOT NULL DEFAULT '{}'   -- JSON index report, verbatim
);

CREATE INDEX index_runs_scope ON index_runs (project_id, scope, status, id);

-- embedding_cache: vectors by (embedding space, hash of the exact text
-- sent), so a reindex of unchanged text makes no provider call. Untyped
-- vector: each space has its own length.
CREATE TABLE embedding_cache (
    space      text NOT NULL,
    key        text NOT NULL,
    vector     vector NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (space, key)
);

-- rag_searches: one row per search, whose owner searched. The identity's
-- sequence never hands an id out twice, whatever is deleted.
-- project_id has no foreign key: RemoveProject deletes and counts a
-- project's searches itself.
CREATE TABLE rag_searches (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id       bigint,
    owner            text NOT NULL,
    query            text NOT NULL,
    scopes           text NOT NULL DEFAULT '[]',  -- JSON array
    hits             text NOT NULL DEFAULT '[]',  -- JSON [{chunkId, rank, score, ...}], rank 1-based
    weights          text NOT NULL,               -- JSON, frozen verbatim
    degraded         boolean NOT NULL,
    vector_available boolean NOT NULL,
    latency_ms       double precision NOT NULL,
    actor            text NOT NULL,
    session_id       text,
    purpose          text NOT NULL DEFAULT 'search' CHECK (purpose IN ('search', 'eval')),
    created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX rag_searches_time ON rag_searches (created_at);
CREATE INDEX rag_searches_project ON rag_searches (project_id);

-- rag_feedback: one verdict per (search, chunk); a re-vote replaces it. A
-- vote goes with its chunk when a reindex changes or removes the chunk
-- (the foreign key's cascade: one database here), and with its search.
CREATE TABLE rag_feedback (
    search_id  bigint NOT NULL REFERENCES rag_searches(id) ON DELETE CASCADE,
    chunk_id   text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    owner      text NOT NULL,
    rank       integer NOT NULL CHECK (rank >= 1),
    verdict    text NOT NULL CHECK (verdict IN ('useful', 'irrelevant')),
    actor      text NOT NULL,
    session_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (search_id, chunk_id)
);

CREATE INDEX rag_feedback_chunk ON rag_feedback (chunk_id);
