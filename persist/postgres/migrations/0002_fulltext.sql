-- 0002_fulltext: the native full-text index of SEARCH_BACKEND=native, the
-- PostgreSQL counterpart of SQLite's FTS5 table: a tsvector column with a
-- GIN index. A trigger created by the store (EnsureFullTextLanguage, with
-- the text search configuration of FTS_LANGUAGE) fills it in the writing
-- transaction; an in-process deployment drops the trigger
-- (DropFullTextTriggers), so its writes do not pay for it.
-- fulltext_state records the configuration the column was built with; no
-- row means the column is not maintained and must be rebuilt before use.

ALTER TABLE context_entries ADD COLUMN text_search_vector tsvector;
CREATE INDEX idx_text_search_vector ON context_entries USING gin (text_search_vector);

CREATE TABLE fulltext_state (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    language TEXT NOT NULL,
    config   TEXT NOT NULL
);
