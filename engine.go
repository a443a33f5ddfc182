package contextd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/ids"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/retrieve"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/internal/write"
	"github.com/contextd/contextd/persist"
)

// IndexedField is one entry of METADATA_INDEXED_FIELDS: a top-level metadata
// key and its type hint (string, integer, boolean, float, array, object).
type IndexedField struct {
	Name string
	Type string
}

// DefaultIndexedFields is the default of METADATA_INDEXED_FIELDS.
var DefaultIndexedFields = []IndexedField{
	{"status", "string"}, {"agent_name", "string"}, {"task_name", "string"},
	{"project", "string"}, {"report_type", "string"},
	{"references", "object"}, {"technologies", "array"},
}

// Config configures an Engine. The zero value of every field means its
// documented default.
type Config struct {
	// Store is the database; when nil, Open opens the one Storage names.
	Store persist.Store
	// DBPath is the database file of a file-backed store (DB_PATH,
	// default ~/.mcp/context_storage.db).
	DBPath string
	// Storage selects the store Open opens when Store is nil: Backend
	// (STORAGE_BACKEND, default "sqlite"), URL, and backend Options such
	// as sqlite.Options; Path defaults to DBPath. The backend must be
	// linked in: package config and cmd/contextd link SQLite, a library
	// user imports it (import _ "github.com/contextd/contextd/persist/sqlite").
	Storage persist.OpenConfig
	// IndexPath is the path prefix of the in-process index snapshots
	// (<IndexPath>.index for full text, <IndexPath>.vectors for vectors),
	// for any store. Default when Open opens the store: the database
	// file, or for a server database a folder under
	// ~/.mcp/contextd-index named from its URL (search.SnapshotPrefix);
	// empty (a Store given, or in memory) keeps no snapshots: the indexes
	// are rebuilt from SQL at each start, the full-text one in a temporary
	// directory. FTS.IndexDir and Embedding.IndexDir override it per index.
	IndexPath string

	// DefaultVisibility applies when a store names none (default private).
	DefaultVisibility string
	// AnonymousPrincipal, when set, names a read-only principal.
	AnonymousPrincipal string
	// PublishRole, when set, is required to make an entry public.
	PublishRole string
	// OperatorRole, when set, is required to see get_statistics'
	// deployment-wide figures (internal/deployment).
	OperatorRole string
	// DefaultGroupGrants is "none" (default) or "author_groups".
	DefaultGroupGrants string

	// MaxImageSizeMB and MaxTotalSizeMB bound images (defaults 10 and 100).
	MaxImageSizeMB int
	MaxTotalSizeMB int
	// MaxTextChars caps an entry's text in code points (MAX_TEXT_CHARS, default 10 Mi).
	MaxTextChars int
	// IndexedFields are the indexed metadata fields (nil = DefaultIndexedFields).
	IndexedFields []IndexedField
	// SearchTruncationLength cuts search result text (default 300).
	SearchTruncationLength int
	// IncludeSummaryInGet is GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY.
	IncludeSummaryInGet bool

	// Grep holds the GREP_* caps of grep_context.
	Grep GrepConfig
	// Summary configures summary generation (no Summarizer: none).
	Summary SummaryConfig
	// IndexTree configures index-tree node summaries.
	IndexTree IndexTreeConfig
	// FTS configures full-text search (ENABLE_FTS, SEARCH_BACKEND,
	// FTS_LANGUAGE).
	FTS FTSConfig
	// Embedding configures embeddings, chunking and semantic search.
	Embedding EmbeddingConfig
	// Hybrid configures hybrid_search_context.
	Hybrid HybridConfig
	// Rerank configures reranking of the ranked searches.
	Rerank RerankConfig
	// Knowledge configures the knowledge containers and their ingestion.
	Knowledge KnowledgeConfig

	// Logger receives the engine's diagnostics: index rebuild and
	// reconcile progress (unless FTS.Progress takes it) and the details of
	// failed knowledge ingestions, at Info and above. nil discards them:
	// a library writes nowhere unless asked (the server passes its own).
	Logger *slog.Logger

	// Now and NewID are seams for tests; nil means the wall clock and
	// monotonic UUIDv7 ids.
	Now   func() time.Time
	NewID func() string
}

// Engine is an open contextd engine. It is safe for concurrent use.
type Engine struct {
	cfg       Config
	st        persist.Store
	ownsSt    bool
	indexPath string // see Config.IndexPath
	now       func() time.Time
	newID     func() string
	indexed   map[string]string
	gen       *generate.Generator
	w         *write.Writer // the write path
	fts       *search.FullText
	vec       *retrieve.Semantic
	feed      *follow.Feed // the store's change log, followed by the in-process indexes
	know      *knowledge.Service
	log       *slog.Logger // Config.Logger, never nil
	// progressMu serializes the progress lines of the two indexes, which
	// open side by side.
	progressMu sync.Mutex
}

// engineLogger is cfg.Logger, else a logger that discards.
func engineLogger(cfg Config) *slog.Logger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// progress is where index rebuild progress goes: FTS.Progress, else the
// logger, a line a record.
func (e *Engine) progress() io.Writer {
	if e.cfg.FTS.Progress != nil {
		return search.LockedWriter{Mu: &e.progressMu, W: e.cfg.FTS.Progress}
	}
	return search.LogWriter{Log: e.log}
}

// DefaultDBPath returns ~/.mcp/context_storage.db.
func DefaultDBPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("default database path: %w", err)
	}
	return filepath.Join(home, ".mcp", "context_storage.db"), nil
}

// Open opens an engine on cfg.Store, or on SQLite at cfg.DBPath.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.DefaultVisibility == "" {
		cfg.DefaultVisibility = VisibilityPrivate
	}
	if cfg.DefaultGroupGrants == "" {
		cfg.DefaultGroupGrants = "none"
	}
	if cfg.MaxImageSizeMB <= 0 {
		cfg.MaxImageSizeMB = 10
	}
	if cfg.MaxTotalSizeMB <= 0 {
		cfg.MaxTotalSizeMB = 100
	}
	if cfg.IndexedFields == nil {
		cfg.IndexedFields = DefaultIndexedFields
	}
	if cfg.SearchTruncationLength <= 0 {
		cfg.SearchTruncationLength = 300
	}
	e := &Engine{cfg: cfg, st: cfg.Store, now: cfg.Now, newID: cfg.NewID, log: engineLogger(cfg)}
	if e.now == nil {
		e.now = time.Now
	}
	if e.newID == nil {
		e.newID = ids.NewGenerator(nil).Next
	}
	e.gen = newGenerator(cfg)
	e.indexed = make(map[string]string, len(cfg.IndexedFields))
	for _, f := range cfg.IndexedFields {
		e.indexed[f.Name] = f.Type
	}
	e.indexPath = cfg.IndexPath
	if e.st == nil {
		if err := e.openStore(ctx); err != nil {
			return nil, err
		}
	}
	e.feed = follow.NewFeed(e.st)
	// The full-text and the vector index open side by side: each reads
	// its own snapshot, or rebuilds from SQL, and follows the feed on its
	// own. One after the other they were 1.1 and 1.3 s of CPU of a 2.1 s
	// start at 1M entries (the bench's kept database).
	var wg sync.WaitGroup
	var ftErr error
	wg.Go(func() { ftErr = e.openFullText(ctx) })
	semErr := e.openSemantic(ctx)
	wg.Wait()
	if err := cmp.Or(ftErr, semErr); err != nil {
		_ = e.Close()
		return nil, err
	}
	if err := e.openKnowledge(ctx); err != nil {
		_ = e.Close()
		return nil, err
	}
	e.w = e.newWriter()
	return e, nil
}

// openStore opens the store cfg.Storage names, a file-backed one at DBPath
// by default, and derives the index snapshot paths from its file.
func (e *Engine) openStore(ctx context.Context) error {
	oc := e.cfg.Storage
	if oc.Backend == "" {
		oc.Backend = DefaultStorageBackend
	}
	if oc.Path == "" && oc.URL == "" {
		oc.Path = e.cfg.DBPath
		if oc.Path == "" {
			var err error
			if oc.Path, err = DefaultDBPath(); err != nil {
				return err
			}
		}
	}
	st, err := persist.Open(ctx, oc)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	e.st, e.ownsSt = st, true
	if e.indexPath == "" {
		e.indexPath = search.SnapshotPrefix(oc.Path, oc.URL, oc.Options)
	}
	return nil
}

// DefaultStorageBackend is the STORAGE_BACKEND of an empty Config.
const DefaultStorageBackend = "sqlite"

// Close closes the store when the engine opened it.
func (e *Engine) Close() error {
	// The knowledge workers stop first: they write to the store.
	kerr := e.closeKnowledge()
	e.feed.Close() // no commit wakes an index from here on
	err := errors.Join(kerr, e.vec.Close(), e.closeFullText())
	if e.ownsSt {
		return errors.Join(err, e.st.Close())
	}
	return err
}

// Backend names the storage backend ("sqlite" or "postgresql").
func (e *Engine) Backend() string { return e.st.Backend() }

// Persist returns the underlying store.
func (e *Engine) Persist() persist.Store { return e.st }

// ReleaseMemory is the idle engine's upkeep (search.ReleaseMemory): new
// segments' search caches built, memory handed back.
func (e *Engine) ReleaseMemory(ctx context.Context) error {
	return search.ReleaseMemory(ctx, e.st, e.fts, e.vec.Leg())
}

// caller returns the principal of ctx.
func (e *Engine) caller(ctx context.Context) (Principal, persist.Access, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok || p.ID == "" {
		return Principal{}, persist.Access{}, ErrNoPrincipal
	}
	return p, persist.Access{Principal: p.ID, Groups: p.Groups}, nil
}

// CheckWritable fails with the documented read-only message when the caller
// of ctx is the anonymous principal; transports call it before they look at
// any argument of a writing tool.
func (e *Engine) CheckWritable(ctx context.Context, tool string) error {
	p, ok := PrincipalFrom(ctx)
	if ok && e.cfg.AnonymousPrincipal != "" && p.ID == e.cfg.AnonymousPrincipal {
		return newErr(ErrReadOnly, "The anonymous principal is read-only: %s is not permitted", tool)
	}
	return nil
}
