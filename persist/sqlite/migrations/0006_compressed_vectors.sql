-- 0006_compressed_vectors: chunk vectors stored as TurboQuant codes (C.14).
-- A chunk row keeps its float32 vector in embedding, its code (a one-row
-- TQP1 payload) in code, or both; a row without the float32 form holds an
-- empty embedding blob (SQLite cannot drop the NOT NULL of 0005 without
-- rebuilding the table and its AUTOINCREMENT keys). The sqlite-vec triggers
-- copy only blobs of the table's dimension, so code-only rows never reach
-- vec_context_embeddings.
--
-- The spec names a separate vec_context_embeddings_compressed table; one
-- table with two columns keeps a chunk's key (what the in-process index
-- keys it by) across migrations between the forms.
ALTER TABLE embedding_chunks ADD COLUMN code BLOB;

CREATE TABLE compression_metadata (
    id                   INTEGER PRIMARY KEY CHECK (id = 1),
    provider             TEXT    NOT NULL,
    bits                 INTEGER NOT NULL CHECK (bits BETWEEN 1 AND 4),
    variant              TEXT    NOT NULL CHECK (variant IN ('mse', 'ip')),
    seed                 INTEGER NOT NULL CHECK (seed BETWEEN 0 AND 4294967295),
    dim                  INTEGER NOT NULL CHECK (dim > 0),
    codebook_fingerprint TEXT    NOT NULL,
    created_at           INTEGER NOT NULL
);
