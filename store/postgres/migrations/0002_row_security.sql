-- 0002: privacy the database enforces (issue 33). Each team member connects
-- as a PostgreSQL role of their own, and these row-level security policies
-- let a role read only its own session rows (sessions, events, session
-- chunks, runs of the session scope, transcripts' checkpoints, searches,
-- votes) and the sessions their owner shared; docs and ADRs, projects and
-- the embedding cache stay everyone's. The owner column of those rows is
-- the role that wrote them (current_user): the engine writes it, and the
-- policies' WITH CHECK refuse any other.
--
-- The tables' owner (the admin role that ran the migrations, `ragd team
-- init`) and superusers are not subject to row security, so a database one
-- person uses as its owner works as before. Members get their privileges
-- from the group role `ragd team init` creates (team.go), never DDL.

ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON chunks
    USING (scope <> 'session' OR owner = current_user OR shared)
    WITH CHECK (scope <> 'session' OR owner = current_user);

ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON sessions
    USING (owner = current_user OR shared)
    WITH CHECK (owner = current_user);

ALTER TABLE session_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON session_events
    USING (owner = current_user OR EXISTS (SELECT 1 FROM sessions s
        WHERE s.project_id = session_events.project_id AND s.id = session_events.session_id AND s.shared))
    WITH CHECK (owner = current_user);

-- Runs of docs and ADRs are the shared index's (a scope's freshness);
-- a session run is its owner's.
ALTER TABLE index_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON index_runs
    USING (scope <> 'session' OR owner = current_user)
    WITH CHECK (owner = current_user);

ALTER TABLE transcript_files ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON transcript_files
    USING (owner = current_user) WITH CHECK (owner = current_user);

ALTER TABLE rag_searches ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON rag_searches
    USING (owner = current_user) WITH CHECK (owner = current_user);

ALTER TABLE rag_feedback ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member ON rag_feedback
    USING (owner = current_user) WITH CHECK (owner = current_user);

-- Who holds a project (the last to leave removes it whole) and which
-- session ids were forgotten (no one's import brings one back) are read by
-- everyone; each writes their own.
ALTER TABLE project_paths ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member_read ON project_paths FOR SELECT USING (true);
CREATE POLICY ragd_member_write ON project_paths
    USING (owner = current_user) WITH CHECK (owner = current_user);

ALTER TABLE forgotten_sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY ragd_member_read ON forgotten_sessions FOR SELECT USING (true);
CREATE POLICY ragd_member_write ON forgotten_sessions
    USING (owner = current_user) WITH CHECK (owner = current_user);

-- Session and event ids are unique per project, whoever holds them: an
-- append naming another owner's session or event is a conflict, refused
-- without comparing or revealing its content. Row security hides those
-- rows from the appending member, so this function, run with its definer's
-- rights (the tables' owner), says which of the ids another owner holds:
-- the ids alone.
CREATE FUNCTION ragd_foreign_ids(p_project bigint, p_owner text, p_sessions text[], p_events text[])
RETURNS TABLE (kind text, id text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    SELECT 'session', s.id FROM sessions s
        WHERE s.project_id = p_project AND s.id = ANY (p_sessions) AND s.owner <> p_owner
    UNION ALL
    SELECT 'event', e.id FROM session_events e
        WHERE e.project_id = p_project AND e.id = ANY (p_events) AND e.owner <> p_owner
$$;
