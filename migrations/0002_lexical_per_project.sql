-- 0002: one lexical table per project, analysed per language
-- (docs/adr/0006-lexical-per-project.md).
--
-- The shared chunks_fts gave bm25 the statistics of every project at once,
-- so indexing one project moved another's scores; and its porter tokenizer
-- stemmed English only. Each project now has a contentless FTS5 table
-- chunks_fts_<project id> over the text as the lexical package analyses it.
-- SQL cannot analyse: the store creates and fills those tables in Go, in
-- this migration's transaction (store/migrate.go), from the chunks, as
-- English: the language every existing index was stemmed for. Vectors and
-- the embedding cache are untouched.

-- language: the setting; '' detects it from the text at the first index.
ALTER TABLE projects ADD COLUMN language TEXT NOT NULL DEFAULT '';
-- lexical_language: what chunks_fts_<id> is analysed with; '' until the
-- first chunk is written.
ALTER TABLE projects ADD COLUMN lexical_language TEXT NOT NULL DEFAULT '';

UPDATE projects SET lexical_language = 'english'
WHERE EXISTS (SELECT 1 FROM chunks WHERE chunks.project_id = projects.id);

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TRIGGER chunks_fts_update;
DROP TABLE chunks_fts;
