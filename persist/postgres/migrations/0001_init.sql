-- 0001_init: the tables of persist/sqlite's migrations 0001-0005 in the
-- PostgreSQL dialect, in the schema of POSTGRESQL_SCHEMA (search_path).
--
-- Ids and every text that is ordered or compared (ids, threads, tags,
-- principals) use COLLATE "C": byte order of UTF-8, which is code-point
-- order, the order SQLite's BINARY collation gives and the tools document,
-- whatever the database's locale.
--
-- metadata_text keeps the metadata exactly as stored (key order and
-- spelling round-trip, as on SQLite); metadata is its JSONB form, generated
-- by the database, which every filter reads and the GIN index covers.

CREATE TABLE context_entries (
    id           TEXT COLLATE "C" PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
    thread_id    TEXT COLLATE "C" NOT NULL,
    source       TEXT NOT NULL CHECK (source IN ('user', 'agent')),
    content_type TEXT NOT NULL CHECK (content_type IN ('text', 'multimodal')),
    text_content TEXT NOT NULL,
    metadata_text TEXT,
    metadata     JSONB GENERATED ALWAYS AS (metadata_text::jsonb) STORED,
    summary      TEXT,
    content_hash TEXT COLLATE "C",
    version      BIGINT NOT NULL DEFAULT 0,
    owner_id     TEXT COLLATE "C" NOT NULL,
    visibility   TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX idx_thread_created ON context_entries (thread_id, created_at DESC, id DESC);
CREATE INDEX idx_entries_created ON context_entries (created_at DESC, id DESC);
CREATE INDEX idx_entries_thread_source ON context_entries (thread_id, source, id);
CREATE INDEX idx_entries_owner_thread ON context_entries (owner_id, thread_id);
CREATE INDEX idx_entries_public ON context_entries (visibility) WHERE visibility = 'public';

-- The reference's GIN index over the whole metadata document (containment
-- and the object/array fields of METADATA_INDEXED_FIELDS), and expression
-- indexes on the default scalar fields, spelled as the query builder
-- emits them (metadata ->> 'field').
CREATE INDEX idx_metadata_gin ON context_entries USING gin (metadata jsonb_path_ops);
CREATE INDEX idx_metadata_status ON context_entries ((metadata ->> 'status')) WHERE metadata ->> 'status' IS NOT NULL;
CREATE INDEX idx_metadata_agent_name ON context_entries ((metadata ->> 'agent_name')) WHERE metadata ->> 'agent_name' IS NOT NULL;
CREATE INDEX idx_metadata_task_name ON context_entries ((metadata ->> 'task_name')) WHERE metadata ->> 'task_name' IS NOT NULL;
CREATE INDEX idx_metadata_project ON context_entries ((metadata ->> 'project')) WHERE metadata ->> 'project' IS NOT NULL;
CREATE INDEX idx_metadata_report_type ON context_entries ((metadata ->> 'report_type')) WHERE metadata ->> 'report_type' IS NOT NULL;

CREATE TABLE tags (
    id               BIGSERIAL PRIMARY KEY,
    context_entry_id TEXT COLLATE "C" NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    tag              TEXT COLLATE "C" NOT NULL,
    UNIQUE (context_entry_id, tag)
);
CREATE INDEX idx_tags_tag ON tags (tag);

CREATE TABLE image_attachments (
    id               BIGSERIAL PRIMARY KEY,
    context_entry_id TEXT COLLATE "C" NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    image_data       BYTEA NOT NULL,
    mime_type        TEXT NOT NULL,
    image_metadata   TEXT,
    position         INTEGER NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX idx_image_entry ON image_attachments (context_entry_id, position);

CREATE TABLE context_entry_grants (
    id               BIGSERIAL PRIMARY KEY,
    context_entry_id TEXT COLLATE "C" NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    principal_type   TEXT COLLATE "C" NOT NULL CHECK (principal_type IN ('user', 'group')),
    principal_id     TEXT COLLATE "C" NOT NULL,
    permission       TEXT COLLATE "C" NOT NULL CHECK (permission IN ('read', 'write')),
    granted_by       TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    UNIQUE (context_entry_id, principal_type, principal_id, permission)
);
CREATE INDEX idx_grants_principal ON context_entry_grants (principal_type, principal_id, context_entry_id);

-- The change log. seq is assigned by the store as max(seq)+1 while it
-- holds the write lock (a transaction-scoped advisory lock), not by a
-- sequence: nextval() is not rolled back, so a failed write would leave
-- a gap, and followers rely on a gap-free log in commit order. No foreign
-- key: deletions are logged too.
CREATE TABLE change_log (
    seq      BIGINT PRIMARY KEY,
    entry_id TEXT COLLATE "C" NOT NULL,
    op       TEXT NOT NULL,
    at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE context_index_nodes (
    context_entry_id TEXT COLLATE "C" NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    node_id          TEXT COLLATE "C" NOT NULL,
    char_start       INTEGER NOT NULL,
    char_end         INTEGER NOT NULL,
    summary          TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (context_entry_id, node_id)
);

-- Chunk vectors as little-endian float32 bytes (as on SQLite). Chunk ids
-- come from a sequence and are never reused: in-process vector indexes
-- key their graph nodes by them.
CREATE TABLE embedding_chunks (
    id          BIGSERIAL PRIMARY KEY,
    context_id  TEXT COLLATE "C" NOT NULL REFERENCES context_entries (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    start_index INTEGER NOT NULL,
    end_index   INTEGER NOT NULL,
    embedding   BYTEA NOT NULL
);
CREATE INDEX idx_embedding_chunks_context ON embedding_chunks (context_id);

CREATE TABLE embedding_metadata (
    context_id  TEXT COLLATE "C" PRIMARY KEY REFERENCES context_entries (id) ON DELETE CASCADE,
    model_name  TEXT,
    dimensions  INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE embedding_model (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    model_name  TEXT NOT NULL,
    dimensions  INTEGER NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL
);
