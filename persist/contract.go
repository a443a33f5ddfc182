package persist

import "context"

// This file is the storage contract: what a backend implements so the
// engine can run on it. Capabilities every backend must have are part of
// Store and Tx, so a type that wraps a Store by embedding it (metrics,
// tracing, a test's racing writer) keeps all of them. The database's own
// search engines are the one optional part; a store reports them through
// Store.Native, never through type assertions, so a wrapper cannot hide
// them either. Every implementation asserts `var _ persist.Store =
// (*Store)(nil)` in its own package and runs persist/persisttest.

// Tx is one write transaction. All writes append to the change log.
type Tx interface {
	Reader
	VectorWriter
	NodeSummaryWriter
	// Insert stores a new entry with its tags, images and grants.
	Insert(ctx context.Context, e *Entry, grants []Grant) error
	// Update applies u to entry id when its version (and hash) match;
	// it reports whether a row was changed.
	Update(ctx context.Context, id string, u Update) (bool, error)
	// Delete removes the entries and everything attached to them.
	Delete(ctx context.Context, ids []string) (int, error)
	// Grant adds g to entry id unless the entry already holds the same
	// (type, principal, permission) grant; created reports whether a row
	// was written. A new grant appends an OpGrant change-log row and leaves
	// the entry's updated_at and version alone.
	Grant(ctx context.Context, id string, g Grant) (created bool, err error)
	// Ungrant removes the one grant (type, principal, permission) of entry
	// id; removed reports whether it existed. A removal appends an OpGrant
	// change-log row.
	Ungrant(ctx context.Context, id, principalType, principalID, permission string) (removed bool, err error)
}

// Store is a database holding contextd's truth.
type Store interface {
	Reader
	ChangeFeed
	IndexSource
	VectorStore
	NodeSummaryReader
	IngestReader
	// Write runs fn in one serialized write transaction, committing when
	// fn returns nil and rolling back otherwise. Every entry the
	// transaction changes gets one change-log row, written in the same
	// transaction. A store may send a write's statements later than the
	// call that made them (and fail a later call, or Write itself, with
	// their error); writes made with a context of WithItem fail as that
	// item's *ItemError wherever they surface.
	Write(ctx context.Context, fn func(tx Tx) error) error
	// Native reports the database's own search engines, for
	// SEARCH_BACKEND=native; a field is nil when the backend has none.
	Native() Native
	// Backend names the dialect: "sqlite" or "postgresql".
	Backend() string
	// PoolStats reports the store's connections and the operations run
	// on them (get_statistics.connection_metrics). Every SQL backend has
	// a connection pool, so this is part of Store rather than optional.
	PoolStats() PoolStats
	Close() error
}

// ChangeFeed is the change log as the in-process indexes follow it.
//
// Guarantees the followers rely on: seq values are assigned in commit
// order without gaps (a follower that has applied every row up to seq n
// has seen every committed change up to n), and a row is visible to
// Changes and LastSeq once its transaction has committed, never before.
type ChangeFeed interface {
	// LastSeq returns the newest committed seq (0 when the log is empty).
	LastSeq(ctx context.Context) (int64, error)
	// Changes returns change-log rows with seq > after, in seq order, at
	// most limit of them (all of them when limit <= 0).
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// AfterCommit registers fn to run after every committed write of this
	// store, replacing the function registered before; nil unregisters.
	// It may run in the writer's goroutine, so fn must only wake whoever
	// applies the change, not do the work.
	AfterCommit(fn func(ctx context.Context))
}

// IndexSource feeds the in-process indexes: entries read without any
// access restriction (an index holds every entry and filters at search
// time), with every grant, so the index can hold the access fields it
// filters on.
//
// Entry ids are never reused: an id that was deleted never names another
// entry, so an index may key anything it keeps by id.
type IndexSource interface {
	// IndexDocs returns the entries among ids that exist, with their
	// grants (ids that do not exist are omitted).
	IndexDocs(ctx context.Context, ids []string) ([]IndexDoc, error)
	// ScanIndexDocs pages through every entry in id order, after afterID.
	ScanIndexDocs(ctx context.Context, afterID string, limit int) ([]IndexDoc, error)
	// ScanAccessDocs is ScanIndexDocs without the text (Text is ""): what
	// an access catalog needs (metadata included: the full-text index's
	// catalog answers search_context's metadata filters), far less to read
	// at start-up.
	ScanAccessDocs(ctx context.Context, afterID string, limit int) ([]IndexDoc, error)
	// FilterIDs returns the ids of readable entries matching f: the
	// allowed set of filters only SQL evaluates (metadata conditions).
	FilterIDs(ctx context.Context, acc Access, f Filter) ([]string, error)
	// Texts returns the text of the readable entries among ids, by id.
	Texts(ctx context.Context, acc Access, ids []string) (map[string]string, error)
}

// VectorStore keeps the chunk vectors of entries.
//
// Chunk row keys (KeyedChunk.Key) are never reused: a key names one chunk
// for its lifetime, so the vector index may key its graph nodes by it.
type VectorStore interface {
	// EmbeddingModel returns the model the stored vectors came from;
	// ok is false before the first vector is written.
	EmbeddingModel(ctx context.Context) (m EmbeddingModel, ok bool, err error)
	// SetEmbeddingModel records the model of the stored vectors.
	SetEmbeddingModel(ctx context.Context, m EmbeddingModel) error
	// VectorDocs returns the chunk vectors of the entries among ids that
	// have any, unrestricted by access.
	VectorDocs(ctx context.Context, ids []string) ([]VectorDoc, error)
	// ScanVectorDocs pages through every entry with vectors in id order.
	ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]VectorDoc, error)
	// EmbeddingCounts counts the readable entries with vectors and their
	// chunks.
	EmbeddingCounts(ctx context.Context, acc Access) (entries, chunks int, err error)
	// EmbeddingBytes is the storage taken by vectors (-1 when unknown).
	EmbeddingBytes(ctx context.Context) (int64, error)
	// Compression returns the recorded provenance of the stored codes;
	// ok is false when none is recorded.
	Compression(ctx context.Context) (c Compression, ok bool, err error)
	// VectorForms counts the stored chunks by form.
	VectorForms(ctx context.Context) (VectorForms, error)
	// HasCodes reports whether any stored chunk holds a code: the
	// start-up check with compression off, without counting every row.
	HasCodes(ctx context.Context) (bool, error)
	// HasUncoded reports whether any stored chunk lacks a code: the
	// start-up check with compression on, without counting every row.
	HasUncoded(ctx context.Context) (bool, error)
}

// VectorWriter writes the vectors of an entry inside a write transaction.
type VectorWriter interface {
	// SetEmbeddings replaces the vectors of entry id; empty Chunks
	// removes them.
	SetEmbeddings(ctx context.Context, id string, e Embeddings) error
	// AddEmbeddings stores the vectors of an entry inserted in the same
	// transaction (nothing to replace).
	AddEmbeddings(ctx context.Context, id string, e Embeddings) error
	// HasEmbeddings reports whether entry id has stored vectors.
	HasEmbeddings(ctx context.Context, id string) (bool, error)
	// SetCompression records c as the provenance of the stored codes,
	// replacing any earlier record; nil removes it.
	SetCompression(ctx context.Context, c *Compression) error
	// RewriteChunks replaces the stored forms (Vector, Code) of existing
	// chunks, keeping their keys, entries and spans: the step of a
	// migration between float32 and compressed storage. It appends no
	// change-log row (no entry changes). A key that names no chunk, or a
	// form with neither Vector nor Code, is an error and nothing of the
	// call is kept by a transaction that returns it.
	RewriteChunks(ctx context.Context, forms []ChunkForm) error
}

// Native holds the database's own search engines; nil fields are engines
// the backend does not have.
type Native struct {
	FullText NativeFullText
	Vectors  NativeVectors
}

// NativeFullText is a database's own full-text engine (SQLite FTS5,
// PostgreSQL tsvector), searched when SEARCH_BACKEND=native.
type NativeFullText interface {
	// FullTextInfo describes the engine.
	FullTextInfo() FullTextInfo
	// FullTextSearch ranks the readable entries matching q.
	FullTextSearch(ctx context.Context, acc Access, q FullTextQuery) (FullTextResult, error)
	// EnsureFullTextLanguage makes the database maintain its full-text
	// index in language, rebuilding it when the language changed or when
	// its upkeep was stopped by DropFullTextTriggers.
	EnsureFullTextLanguage(ctx context.Context, language string) error
	// DropFullTextTriggers stops the database from maintaining its own
	// full-text index, which only the native backend reads: an in-process
	// deployment saves that work on every write.
	DropFullTextTriggers(ctx context.Context) error
	// DocFreqs reports for each word how many entries hold it, and the
	// number of entries: collection statistics for the built-in reranker.
	DocFreqs(ctx context.Context, words []string) (df []int, n int, err error)
}

// FullTextInfo describes a native full-text engine.
type FullTextInfo struct {
	// Engine names it in statistics, e.g. "sqlite fts5 (bm25)".
	Engine string
	// Highlights reports that FullTextHit.Highlighted is filled when
	// asked; without it the engine highlights nothing and passages for a
	// reranker are taken from the start of the text.
	Highlights bool
}

// NativeVectors is a database's own vector search (sqlite-vec, pgvector),
// searched when SEARCH_BACKEND=native.
type NativeVectors interface {
	// EnsureVectorTable creates (or re-creates for a new dimension) the
	// vector table and fills it from the stored vectors.
	EnsureVectorTable(ctx context.Context, dim int) error
	// DropVectorTable removes it, so an in-process deployment does not
	// maintain it on every write.
	DropVectorTable(ctx context.Context) error
	// VectorSearch returns the readable entries nearest to q.Vector.
	VectorSearch(ctx context.Context, acc Access, q VectorQuery) (VectorResult, error)
}
