-- 0003_compressed_vectors: chunk vectors stored as TurboQuant codes (C.14),
-- as SQLite's migration 0006. A chunk row keeps its float32 vector in
-- embedding, its code (a one-row TQP1 payload, opaque to the store) in
-- code, or both; a form the row does not hold is NULL. One table with two
-- columns keeps a chunk's key (what the in-process index keys it by)
-- across migrations between the forms.
ALTER TABLE embedding_chunks ALTER COLUMN embedding DROP NOT NULL;
ALTER TABLE embedding_chunks ADD COLUMN code BYTEA;
ALTER TABLE embedding_chunks ADD CONSTRAINT embedding_chunks_has_form CHECK (embedding IS NOT NULL OR code IS NOT NULL);

CREATE TABLE compression_metadata (
    id                   INTEGER PRIMARY KEY CHECK (id = 1),
    provider             TEXT    NOT NULL,
    bits                 INTEGER NOT NULL CHECK (bits BETWEEN 1 AND 4),
    variant              TEXT    NOT NULL CHECK (variant IN ('mse', 'ip')),
    seed                 BIGINT  NOT NULL CHECK (seed BETWEEN 0 AND 4294967295),
    dim                  INTEGER NOT NULL CHECK (dim > 0),
    codebook_fingerprint TEXT    NOT NULL,
    created_at           TIMESTAMPTZ NOT NULL
);
