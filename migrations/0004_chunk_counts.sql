-- 0004: chunk and vector counts per project and scope, kept by triggers
-- (docs/adr/0009-scale.md).
--
-- Every answer says which share of the chunks it searched had a vector
-- (the rest are waiting for the background fill). Counting them per search
-- cost about 60 ms at a million chunks; these rows cost one row update per
-- chunk written and a one-row read per search. Triggers keep them exact
-- whatever writes the chunks: a scope replaced, vectors filled or reset, a
-- session forgotten, a project removed (its cascade deletes fire them).

CREATE TABLE chunk_counts (
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope      TEXT NOT NULL,
    chunks     INTEGER NOT NULL,
    vectors    INTEGER NOT NULL,  -- chunks whose embedding_space is set
    PRIMARY KEY (project_id, scope)
) WITHOUT ROWID;

INSERT INTO chunk_counts (project_id, scope, chunks, vectors)
SELECT project_id, scope, count(*), count(embedding_space) FROM chunks GROUP BY project_id, scope;

CREATE TRIGGER chunk_counts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_counts (project_id, scope, chunks, vectors)
    VALUES (new.project_id, new.scope, 1, new.embedding_space IS NOT NULL)
    ON CONFLICT (project_id, scope) DO UPDATE SET chunks = chunks + 1, vectors = vectors + excluded.vectors;
END;

CREATE TRIGGER chunk_counts_delete AFTER DELETE ON chunks BEGIN
    UPDATE chunk_counts SET chunks = chunks - 1, vectors = vectors - (old.embedding_space IS NOT NULL)
    WHERE project_id = old.project_id AND scope = old.scope;
END;

-- A chunk's project and scope never change (they are part of its id); its
-- vector comes and goes.
CREATE TRIGGER chunk_counts_vector AFTER UPDATE OF embedding_space ON chunks
WHEN (old.embedding_space IS NULL) != (new.embedding_space IS NULL) BEGIN
    UPDATE chunk_counts SET vectors = vectors + (new.embedding_space IS NOT NULL) - (old.embedding_space IS NOT NULL)
    WHERE project_id = new.project_id AND scope = new.scope;
END;
