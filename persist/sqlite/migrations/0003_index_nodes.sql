-- 0003_index_nodes: per-section summaries of the index tree (C.12, R-405),
-- stored beside the entry and replaced whenever its text changes. A
-- trigger (not a foreign key, which SQLITE_FOREIGN_KEYS may switch off)
-- removes them with their entry.

CREATE TABLE context_index_nodes (
    context_entry_id TEXT    NOT NULL,
    node_id          TEXT    NOT NULL,
    char_start       INTEGER NOT NULL,
    char_end         INTEGER NOT NULL,
    summary          TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (context_entry_id, node_id)
);

CREATE TRIGGER context_index_nodes_ad AFTER DELETE ON context_entries BEGIN
    DELETE FROM context_index_nodes WHERE context_entry_id = old.id;
END;
