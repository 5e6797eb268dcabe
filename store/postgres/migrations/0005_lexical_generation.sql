-- 0005: a generation of each scope's lexical index (issue 33), so that a
-- daemon counts the idf's statistics (N and each term's document
-- frequency, rank.go) once per state of the project rather than in every
-- search: at 10k chunks a frequent word's count read every row holding it,
-- as long again as ranking them (EXPLAIN (ANALYZE, BUFFERS),
-- docs/engines.md).
--
-- Every transaction that inserts or deletes chunks, or changes a chunk's
-- tsvector or its sharing, adds one to the generation of each (project,
-- scope, owner) it touches: a snapshot that sees the same generations as
-- another sees the same lexical index, since each row's generations are
-- written one after the other under its row lock.
-- Writers of one scope already wait for each other (the scope's advisory
-- lock), so the row adds no waiting between the writers of different
-- scopes or owners. No foreign key: the rows of a removed project are
-- never read again, and a cascade from projects would race the trigger.
CREATE TABLE lexical_generations (
    project_id bigint NOT NULL,
    scope text NOT NULL,
    owner text NOT NULL,
    generation bigint NOT NULL,
    PRIMARY KEY (project_id, scope, owner)
);

-- The triggers' functions run with their definer's rights (the tables'
-- owner): a team member writes chunks and bumps generations without any
-- privilege on this table, and reads them through ragd_lexical_generation.
--
-- A transaction bumps each row once, at its first statement touching it
-- (a transaction-local setting remembers it; a rolled-back savepoint
-- forgets both): the generations tell committed states apart, and the
-- row stays locked by that transaction until it ends. Bumped at every
-- statement, a reindex writing one chunk a statement updated one row
-- thousands of times in one transaction, each update walking the longer
-- chain of the row's versions (3,000 inserts: 0.8 to 1.3 s against 0.16 s
-- without the trigger; once a transaction, 0.19 s).
CREATE FUNCTION ragd_lexical_bump(p_project bigint, p_scope text, p_owner text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    k text := 'ragd.lexgen_' || md5(p_project || '/' || p_scope || '/' || p_owner);
BEGIN
    IF coalesce(current_setting(k, true), '') <> '1' THEN
        INSERT INTO lexical_generations AS g (project_id, scope, owner, generation)
            VALUES (p_project, p_scope, p_owner, 1)
            ON CONFLICT (project_id, scope, owner) DO UPDATE SET generation = g.generation + 1;
        PERFORM set_config(k, '1', true);
    END IF;
END $$;

CREATE FUNCTION ragd_lexical_rows_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM ragd_lexical_bump(project_id, scope, owner)
        FROM (SELECT DISTINCT project_id, scope, owner FROM ragd_changed ORDER BY 1, 2, 3) c;
    RETURN NULL;
END $$;

-- An update counts only when it changes what the ranking reads: the
-- tsvector, or who may read the chunk (a vector's backfill does not).
CREATE FUNCTION ragd_lexical_rows_updated() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM ragd_lexical_bump(project_id, scope, owner)
        FROM (SELECT DISTINCT n.project_id, n.scope, n.owner FROM ragd_new n JOIN ragd_old o ON o.seq = n.seq
            WHERE o.tsv IS DISTINCT FROM n.tsv OR o.shared IS DISTINCT FROM n.shared ORDER BY 1, 2, 3) c;
    RETURN NULL;
END $$;

CREATE TRIGGER chunks_lexical_inserted AFTER INSERT ON chunks
    REFERENCING NEW TABLE AS ragd_changed FOR EACH STATEMENT EXECUTE FUNCTION ragd_lexical_rows_changed();
CREATE TRIGGER chunks_lexical_deleted AFTER DELETE ON chunks
    REFERENCING OLD TABLE AS ragd_changed FOR EACH STATEMENT EXECUTE FUNCTION ragd_lexical_rows_changed();
CREATE TRIGGER chunks_lexical_updated AFTER UPDATE ON chunks
    REFERENCING OLD TABLE AS ragd_old NEW TABLE AS ragd_new FOR EACH STATEMENT EXECUTE FUNCTION ragd_lexical_rows_updated();

-- ragd_lexical_generation is a project's generations as one text, the key
-- of a daemon's cached statistics; '' before any write. Read in the
-- caller's snapshot (STABLE), with the definer's rights.
CREATE FUNCTION ragd_lexical_generation(p_project bigint) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    SELECT coalesce(string_agg(scope || '/' || owner || '/' || generation, ' ' ORDER BY scope, owner), '')
    FROM lexical_generations WHERE project_id = p_project
$$;
