-- 0008_vector_form_indexes: a partial index over the chunk rows that hold
-- a code, so the start-up check with compression off (the default) asks
-- whether any exists (HasCodes) without reading every row: counting the
-- forms read the whole table at every start, 0.62 s of CPU of a 2.1 s
-- start at 1M chunks. With compression off it is empty, and a write
-- maintains it only for a coded row.
CREATE INDEX idx_embedding_chunks_coded ON embedding_chunks (id) WHERE code IS NOT NULL;
