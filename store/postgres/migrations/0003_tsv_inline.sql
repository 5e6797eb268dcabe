-- 0003: keep each chunk's tsvector in its row (storage MAIN), not in the
-- TOAST table (issue 33). A chunk's tsvector is 2 to 3 kB, beside its text
-- and its vector, so under the default storage PostgreSQL moved it out of
-- line, and every lexical match, count and ts_rank read it back from TOAST,
-- several buffers a row: on 10k chunks a frequent word's ranking read 77k
-- buffers in 366 ms; inline, 3.3k buffers in 97 ms (EXPLAIN (ANALYZE,
-- BUFFERS), docs/engines.md). The rows written before are rewritten once
-- here (a new value is stored under the new storage).
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE MAIN;
UPDATE chunks SET tsv = tsv || ''::tsvector;
