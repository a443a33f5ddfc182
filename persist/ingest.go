package persist

import (
	"context"
	"encoding/json"
)

// IngestRow is one entry whose metadata carries an ingest block, as the
// corpus sync tools read it (A.9): no text, only what a plan compares.
type IngestRow struct {
	ID          string
	Owner       string
	ContentHash string          // "" for legacy rows without a hash
	SourceID    string          // metadata.ingest.source_id
	Ingest      json.RawMessage // the metadata.ingest object as stored
}

// IngestPos is a place in the (source_id, id) order of IngestRows.
type IngestPos struct {
	SourceID string
	ID       string
}

// IngestQuery selects IngestRows. Rows are ordered by source_id, then id,
// both in code-point order (the byte order of UTF-8).
type IngestQuery struct {
	// ThreadID and Scope are required: rows of this thread whose
	// metadata.ingest.scope is this string.
	ThreadID string
	Scope    string
	// OwnedOnly keeps only entries the caller owns; otherwise every
	// readable entry is returned, with its Owner.
	OwnedOnly bool
	// SourceAfter and SourceThrough, when set, bound source_id:
	// SourceAfter < source_id <= SourceThrough.
	SourceAfter, SourceThrough *string
	// From, when set, keeps only rows after this position (keyset paging).
	From *IngestPos
	// Limit caps the rows returned (0: no cap).
	Limit int
}

// IngestReader reads the ingest state of a corpus (part of Store).
type IngestReader interface {
	// IngestEntries returns the readable entries of q.ThreadID whose
	// metadata.ingest is an object with q.Scope as its scope and a
	// string source_id, in (source_id, id) order. The block's other
	// fields are not checked here: the caller decides what is valid.
	IngestEntries(ctx context.Context, acc Access, q IngestQuery) ([]IngestRow, error)
}
