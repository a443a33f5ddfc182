-- 0009_uncoded_chunks_index: a partial index over the chunk rows without
-- a code, so the start-up check with compression on (the default) asks
-- whether any exists (HasUncoded) without reading every row: counting
-- the forms read the whole table at every start, about 0.9 s of CPU a
-- start at 1M chunks (2026-12-05). With compression on it is empty, and a
-- write maintains it only for a row without a code.
CREATE INDEX idx_embedding_chunks_uncoded ON embedding_chunks (id) WHERE code IS NULL;
