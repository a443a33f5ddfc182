-- 0004: indexes that every insert paid for and no query uses.
-- idx_entries_source: two-valued; searches keep SQLite from driving with it
--   (walking created_at and stopping at the page end is far cheaper).
-- idx_entries_owner: a prefix of idx_entries_owner_thread.
-- idx_entries_dedup_hash: the deduplication candidate is found through
--   idx_entries_thread_source (latest id of thread and source) and its hash
--   compared afterwards.
DROP INDEX IF EXISTS idx_entries_source;
DROP INDEX IF EXISTS idx_entries_owner;
DROP INDEX IF EXISTS idx_entries_dedup_hash;
