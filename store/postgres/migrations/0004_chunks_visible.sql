-- 0004: an index of what a snapshot's visibility test reads (issue 33).
-- The lexical ranking's idf needs N, the project's chunks the owner may
-- read, counted in each search's snapshot: without this index that count
-- read every row of the project (on 10k chunks, 8.7k buffers and 62 ms on
-- the loaded test machine); with it, an index-only scan once autovacuum
-- has marked the pages all-visible (14 buffers, 1 to 4 ms; EXPLAIN
-- (ANALYZE, BUFFERS), docs/engines.md).
CREATE INDEX chunks_visible ON chunks (project_id, scope, owner, shared);
