-- 0005: each vector's floats also in a plain table keyed by chunk seq
-- (docs/adr/0009-scale.md).
--
-- The quantized search rescores a shortlist of about 200 chunks from their
-- stored floats. sqlite-vec answers a point read (WHERE chunk_seq = ?) by
-- opening a blob handle on its chunk, about 0.24 ms a read: 98 % of a
-- quantized search's vector time at 100k chunks. A rowid lookup in a plain
-- table reads one page. The vec0 table stays the index the exact scan
-- reads; this one costs the floats' size again on disk (3 KB a chunk at 768
-- dimensions).
--
-- The store writes both tables in the same transactions; the cascade
-- removes a chunk's floats with the chunk, and the trigger when its vector
-- is forgotten (a reset to another embedding space). The Go step of this
-- migration copies the vectors already stored (store/migrate.go).

CREATE TABLE chunk_floats (
    seq       INTEGER PRIMARY KEY REFERENCES chunks(seq) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);

CREATE TRIGGER chunk_floats_forget AFTER UPDATE OF embedding_space ON chunks
WHEN new.embedding_space IS NULL BEGIN
    DELETE FROM chunk_floats WHERE seq = new.seq;
END;
