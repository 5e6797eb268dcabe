-- 0007: the session chunks by their event. The session coverage
-- (store.SessionStats) asks, for each message, whether a chunk of it
-- exists; with only chunks_session (project_id, session_id) each question
-- read every chunk of the message's session, quadratic in a long session
-- (one of 20k messages took 220 s). This index answers each in one seek,
-- and its prefix serves what chunks_session served, so it replaces it.
CREATE INDEX IF NOT EXISTS chunks_session_event ON chunks (project_id, session_id, event_id);
DROP INDEX IF EXISTS chunks_session;
