-- 0005_chunk_form_indexes: partial indexes over the chunk rows with and
-- without a code, so the start-up check asks whether any chunk holds a
-- code (compression off, HasCodes) or lacks one (compression on,
-- HasUncoded) without reading every row, as SQLite's migrations 0008 and
-- 0009 do. The index of the form the configuration writes stays empty;
-- a write maintains the other only for a row of its form.
CREATE INDEX idx_embedding_chunks_coded ON embedding_chunks (id) WHERE code IS NOT NULL;
CREATE INDEX idx_embedding_chunks_uncoded ON embedding_chunks (id) WHERE code IS NULL;
