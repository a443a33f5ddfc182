-- 0005_embeddings: chunk vectors of entries, their per-entry metadata and
-- the model the stored vectors came from. Vectors are little-endian
-- float32 blobs. The write path replaces all rows of an entry at once
-- (SetEmbeddings); an entry's delete removes them through the foreign keys
-- and, because SQLITE_FOREIGN_KEYS may switch those off, through a trigger
-- too (as migration 0003 does for index nodes).
--
-- Chunk ids never come back after a delete (AUTOINCREMENT): in-process
-- vector indexes key chunks by them and may apply a delete late.
--
-- The sqlite-vec table of SEARCH_BACKEND=native (vec_context_embeddings)
-- is not created here: its dimension is the configured model's, so the
-- store creates it on demand (Store.EnsureVectorTable), with the triggers
-- that keep it in step with embedding_chunks.

CREATE TABLE embedding_chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    context_id  TEXT    NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    start_index INTEGER NOT NULL,
    end_index   INTEGER NOT NULL,
    embedding   BLOB    NOT NULL
);
CREATE INDEX idx_embedding_chunks_context ON embedding_chunks (context_id);

CREATE TABLE embedding_metadata (
    context_id  TEXT    PRIMARY KEY REFERENCES context_entries (id) ON DELETE CASCADE,
    model_name  TEXT,
    dimensions  INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE embedding_model (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    model_name  TEXT    NOT NULL,
    dimensions  INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL
);

CREATE TRIGGER embedding_entry_ad AFTER DELETE ON context_entries BEGIN
    DELETE FROM embedding_chunks WHERE context_id = old.id;
    DELETE FROM embedding_metadata WHERE context_id = old.id;
END;
