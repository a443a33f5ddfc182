-- 0001_init: entries, tags, images, grants and the change log.
-- Times are INTEGER unix microseconds (UTC). Ids are 32 lowercase hex.

CREATE TABLE context_entries (
    rowid_int    INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT    NOT NULL UNIQUE
                 CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
    thread_id    TEXT    NOT NULL,
    source       TEXT    NOT NULL CHECK (source IN ('user', 'agent')),
    content_type TEXT    NOT NULL CHECK (content_type IN ('text', 'multimodal')),
    text_content TEXT    NOT NULL,
    metadata     TEXT    CHECK (metadata IS NULL OR json_valid(metadata)),
    summary      TEXT,
    content_hash TEXT,
    version      INTEGER NOT NULL DEFAULT 0,
    owner_id     TEXT    NOT NULL,
    visibility   TEXT    NOT NULL CHECK (visibility IN ('private', 'public')),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

CREATE INDEX idx_entries_thread_created ON context_entries (thread_id, created_at DESC, id DESC);
CREATE INDEX idx_entries_created ON context_entries (created_at DESC, id DESC);
CREATE INDEX idx_entries_source ON context_entries (source);
CREATE INDEX idx_entries_thread_source ON context_entries (thread_id, source, id);
CREATE INDEX idx_entries_dedup_hash ON context_entries (thread_id, source, content_hash);
CREATE INDEX idx_entries_owner ON context_entries (owner_id);
CREATE INDEX idx_entries_owner_thread ON context_entries (owner_id, thread_id);
CREATE INDEX idx_entries_public ON context_entries (visibility) WHERE visibility = 'public';

-- Expression indexes on the default indexed scalar metadata fields. The path
-- spelling ('$."field"') is the one the query builder emits, so equality
-- predicates on these fields can use them.
CREATE INDEX idx_metadata_status ON context_entries (json_extract(metadata, '$."status"'))
    WHERE json_extract(metadata, '$."status"') IS NOT NULL;
CREATE INDEX idx_metadata_agent_name ON context_entries (json_extract(metadata, '$."agent_name"'))
    WHERE json_extract(metadata, '$."agent_name"') IS NOT NULL;
CREATE INDEX idx_metadata_task_name ON context_entries (json_extract(metadata, '$."task_name"'))
    WHERE json_extract(metadata, '$."task_name"') IS NOT NULL;
CREATE INDEX idx_metadata_project ON context_entries (json_extract(metadata, '$."project"'))
    WHERE json_extract(metadata, '$."project"') IS NOT NULL;
CREATE INDEX idx_metadata_report_type ON context_entries (json_extract(metadata, '$."report_type"'))
    WHERE json_extract(metadata, '$."report_type"') IS NOT NULL;

CREATE TABLE tags (
    id               INTEGER PRIMARY KEY,
    context_entry_id TEXT    NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    tag              TEXT    NOT NULL,
    UNIQUE (context_entry_id, tag)
);
CREATE INDEX idx_tags_tag ON tags (tag);

CREATE TABLE image_attachments (
    id               INTEGER PRIMARY KEY,
    context_entry_id TEXT    NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    image_data       BLOB    NOT NULL,
    mime_type        TEXT    NOT NULL,
    image_metadata   TEXT,
    position         INTEGER NOT NULL,
    created_at       INTEGER NOT NULL
);
CREATE INDEX idx_image_entry ON image_attachments (context_entry_id, position);

CREATE TABLE context_entry_grants (
    id               INTEGER PRIMARY KEY,
    context_entry_id TEXT    NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    principal_type   TEXT    NOT NULL CHECK (principal_type IN ('user', 'group')),
    principal_id     TEXT    NOT NULL,
    permission       TEXT    NOT NULL CHECK (permission IN ('read', 'write')),
    granted_by       TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    UNIQUE (context_entry_id, principal_type, principal_id, permission)
);
CREATE INDEX idx_grants_principal ON context_entry_grants (principal_type, principal_id, context_entry_id);

-- No foreign key: deletions are logged too.
CREATE TABLE change_log (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id TEXT    NOT NULL,
    op       TEXT    NOT NULL,
    at       INTEGER NOT NULL
);
