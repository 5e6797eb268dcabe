-- 0007: chunks the embedding model refused for good (a text past its
-- context that it would not truncate, a blank text), so that the
-- background fill stops asking for them: they stay lexical-only, and
-- coverage says why. A mark holds for one embedding space only: another
-- model may embed the text. A chunk whose text changes gets a new row (and
-- a new chance); a deleted chunk takes its mark with it.
CREATE TABLE IF NOT EXISTS unembeddable_chunks (
    chunk_seq       INTEGER PRIMARY KEY REFERENCES chunks(seq) ON DELETE CASCADE,
    embedding_space TEXT NOT NULL,   -- the space whose model refused the text
    content_hash    TEXT NOT NULL,   -- the text refused
    reason          TEXT NOT NULL,   -- the provider's answer, for coverage
    marked_at       TEXT NOT NULL
) STRICT;
