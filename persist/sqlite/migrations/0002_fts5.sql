-- 0002_fts5: the native full-text index (SEARCH_BACKEND=native).
-- An external-content FTS5 table over context_entries.text_content, kept in
-- the writing transaction by triggers, so it is never behind SQL. Porter
-- stemming over unicode61 with diacritics folded (the english default of
-- FTS_LANGUAGE; see C.7).

CREATE VIRTUAL TABLE context_entries_fts USING fts5(
    text_content,
    content = 'context_entries',
    content_rowid = 'rowid_int',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER context_entries_fts_ai AFTER INSERT ON context_entries BEGIN
    INSERT INTO context_entries_fts (rowid, text_content) VALUES (new.rowid_int, new.text_content);
END;

CREATE TRIGGER context_entries_fts_ad AFTER DELETE ON context_entries BEGIN
    INSERT INTO context_entries_fts (context_entries_fts, rowid, text_content)
        VALUES ('delete', old.rowid_int, old.text_content);
END;

CREATE TRIGGER context_entries_fts_au AFTER UPDATE OF text_content ON context_entries BEGIN
    INSERT INTO context_entries_fts (context_entries_fts, rowid, text_content)
        VALUES ('delete', old.rowid_int, old.text_content);
    INSERT INTO context_entries_fts (rowid, text_content) VALUES (new.rowid_int, new.text_content);
END;

INSERT INTO context_entries_fts (context_entries_fts) VALUES ('rebuild');
