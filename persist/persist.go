// Package persist owns the authoritative storage of contextd and its
// contract: entries, tags, images, grants, chunk vectors, node summaries
// and the change log, behind the Store interface (contract.go) that every
// SQL dialect implements (persist/sqlite today, persist/postgres later).
// Backends register under a name (registry.go) so the engine opens a store
// by STORAGE_BACKEND without importing any backend; persist/persisttest is
// the one suite of storage behaviours every backend runs.
//
// A Store never decides policy. The engine validates input, resolves
// identifiers and checks access; the Store applies the access predicates it
// is handed (Access) to every read, and writes what it is told inside one
// transaction together with a change-log row per mutated entry.
//
//	import _ "github.com/contextd/contextd/persist/sqlite" // registers "sqlite"
//
//	st, err := persist.Open(ctx, persist.OpenConfig{Backend: "sqlite", Path: "/tmp/ctx.db"})
//	err = st.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, &e, nil) })
//	page, err := st.Search(ctx, persist.Access{Principal: "local"}, persist.SearchQuery{Limit: 30})
package persist

import (
	"context"
	"encoding/json"
	"time"
)

// Entry is one stored context entry. Times are UTC. ID is the canonical
// 32-character lowercase hex form of a UUIDv7.
type Entry struct {
	ID          string
	ThreadID    string
	Source      string // "user" | "agent"
	ContentType string // "text" | "multimodal"
	Text        string
	Metadata    json.RawMessage // nil when the entry has no metadata (SQL NULL)
	Summary     string          // "" when none (stored as NULL)
	ContentHash string          // sha256 hex of Text; "" for legacy rows
	Version     int64
	Owner       string
	Visibility  string // "private" | "public"
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Tags        []string // sorted ascending; always loaded
	Images      []Image  // loaded only when asked (GetOptions.Images, SearchQuery.Images)
	ImageCount  int      // always loaded
}

// Image is one stored image attachment.
type Image struct {
	Data     []byte
	MimeType string
	Metadata *string // nil when absent; "" round-trips as ""
}

// Grant is one read or write grant on an entry.
type Grant struct {
	PrincipalType string // "user" | "group"
	PrincipalID   string
	Permission    string // "read" | "write"
	GrantedBy     string
	CreatedAt     time.Time
}

// Access is the caller as the store sees it: the principal and its groups.
// Every read applies READ = owner OR public OR a grant (read or write) to the
// principal as a user or to one of its groups.
type Access struct {
	Principal string
	Groups    []string
	// Narrow is a plan hint for the aggregate views (Stats, ListThreads,
	// CountNodeSummaries, EmbeddingCounts) and never changes an answer:
	// the caller may read a small share of the store (the engine knows it
	// from its catalog), so those views gather the readable rows through
	// the owner, public and grant indexes instead of visiting every row.
	Narrow bool
}

// MetaCond is one validated metadata condition on the JSON path Path.
// Value is nil, string, float64, int64 or bool; Values (for in/not_in) holds
// the same kinds. Op is one of the 16 operators of the API reference.
type MetaCond struct {
	Path          []string
	Op            string
	Value         any
	Values        []any
	CaseSensitive bool
}

// Filter is the set of validated structural filters shared by every search.
// Zero fields do not filter.
type Filter struct {
	ThreadID    string
	Source      string
	ContentType string
	Tags        []string // normalized; OR across them
	Meta        []MetaCond
	Start, End  *time.Time // inclusive bounds on created_at
	IDs         []string   // restrict to these ids (nil = no restriction)
	// Before, when set, keeps only entries after this position in the
	// newest-first order (created_at DESC, id DESC): keyset paging.
	Before *Position
	// OmitKnowledge leaves out the entries of knowledge threads
	// (IsKnowledgeThread): the search tools set it when no thread_id is
	// given (knowledge.go).
	OmitKnowledge bool
}

// Position is a place in the newest-first order of entries.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// SearchQuery asks for one page of readable entries matching Filter, newest
// first (created_at DESC, id DESC).
type SearchQuery struct {
	Filter
	Limit   int
	Offset  int
	Images  bool // load image data
	Explain bool // fill SearchResult.Plan
	// MaxTextBytes, when positive, also ends the page after the first
	// entry whose text brings the page's total to at least this many
	// bytes (a page holds at least one entry), so a reader scanning
	// large texts holds a bounded amount at a time.
	MaxTextBytes int
}

// SearchResult is one page of a SearchQuery.
type SearchResult struct {
	Entries []Entry
	Plan    string // the database's query plan when Explain was set
	// Cut reports that MaxTextBytes ended the page before Limit: more
	// entries may follow a page shorter than Limit.
	Cut bool
}

// GetOptions tunes Get.
type GetOptions struct {
	Images bool
}

// ThreadInfo summarizes the readable entries of one thread.
type ThreadInfo struct {
	ThreadID        string
	EntryCount      int
	SourceTypes     int
	MultimodalCount int
	FirstEntry      time.Time
	LastEntry       time.Time
	LastID          string
}

// Count is a name with a number, for top lists.
type Count struct {
	Name  string
	Count int
}

// Stats are the figures of get_statistics computed over readable entries,
// plus the deployment-wide database size.
type Stats struct {
	TotalEntries  int
	BySource      map[string]int
	ByContentType map[string]int
	TotalImages   int
	UniqueTags    int
	TotalThreads  int
	MostActive    []Count // top 5 threads, count DESC, name ASC
	TopTags       []Count // top 10 tags, count DESC, name ASC
	SummaryCount  int     // entries with a non-empty summary
	DBSizeBytes   int64   // -1 when unknown (in-memory database)
}

// DBSizer is a store that reports the size of its database by itself
// (Stats.DBSizeBytes, -1 when unknown): get_statistics answered from an
// in-memory catalog asks it for the one figure the catalog cannot give.
type DBSizer interface {
	DBSize(ctx context.Context) (int64, error)
}

// Ref identifies an entry with its owner, for access decisions.
type Ref struct {
	ID    string
	Owner string
}

// DeleteCriteria are AND-combined criteria of delete_context_batch.
// Zero fields do not restrict.
type DeleteCriteria struct {
	IDs           []string
	ThreadIDs     []string
	Source        string
	CreatedBefore *time.Time
}

// Update describes the fields an update writes. Nil pointers leave a field
// as it is.
type Update struct {
	Text        *string
	ContentHash *string
	Summary     *string // pointer to "" clears
	Metadata    *json.RawMessage
	Tags        *[]string
	Images      *[]Image // replaces all images; ContentType follows
	Visibility  *string
	ContentType *string
	BumpVersion bool
	UpdatedAt   time.Time
	// ExpectVersion must equal the stored version for the update to apply.
	ExpectVersion int64
	// ExpectHash, when set, must also equal the stored content hash
	// (deduplication re-asserts what it observed).
	ExpectHash *string
}

// State is what the engine needs to decide access on one entry.
type State struct {
	Ref
	Readable    bool
	Writable    bool // owner or write grant
	Version     int64
	Metadata    json.RawMessage
	Visibility  string
	ContentHash string
}

// Change is one row of the change log.
type Change struct {
	Seq     int64
	EntryID string
	Op      string // OpInsert, OpUpdate, OpDelete, OpGrant
}

// Change-log operations.
const (
	OpInsert = "insert"
	OpUpdate = "update"
	OpDelete = "delete"
	OpGrant  = "grant"
)

// Reader holds the read operations, available on a Store and inside a Tx.
type Reader interface {
	// ResolvePrefix returns up to two ids of readable entries that start
	// with prefix, in id order.
	ResolvePrefix(ctx context.Context, acc Access, prefix string) ([]string, error)
	// Get returns the readable entries among ids, created_at DESC, id DESC.
	Get(ctx context.Context, acc Access, ids []string, opt GetOptions) ([]Entry, error)
	// Search returns one page of readable entries matching the query.
	Search(ctx context.Context, acc Access, q SearchQuery) (SearchResult, error)
	// ListThreads lists threads holding readable entries, last activity
	// first (last entry DESC, latest id DESC). limit 0 means all.
	// Knowledge threads are left out (IsKnowledgeThread).
	ListThreads(ctx context.Context, acc Access, limit, offset int) ([]ThreadInfo, error)
	// Stats computes get_statistics figures over readable entries
	// outside knowledge threads (IsKnowledgeThread).
	Stats(ctx context.Context, acc Access) (Stats, error)
	// State reports existence and access of one entry; found is false when
	// no entry has the id (readable or not).
	State(ctx context.Context, acc Access, id string) (st State, found bool, err error)
	// DedupCandidate returns the latest readable entry of thread and source
	// (nil if none) and whether a readable entry of the opposite source was
	// stored after it.
	DedupCandidate(ctx context.Context, acc Access, threadID, source string) (cand *Entry, interleaved bool, err error)
	// MatchDelete returns the readable entries matching the criteria.
	MatchDelete(ctx context.Context, acc Access, c DeleteCriteria) ([]Ref, error)
	// Grants lists every grant of entry id, ordered by principal type,
	// principal id and permission (code-point order). The engine checks
	// ownership before it calls this.
	Grants(ctx context.Context, id string) ([]Grant, error)
}
