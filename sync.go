package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/syncplan"
)

// The corpus sync types (plan_context_sync, list_ingest_state); package
// internal/syncplan owns the rules.

// PlanSyncRequest is the input of plan_context_sync: the manifest of a
// corpus (items {source_id, text_digest, meta_digest} or {source_id,
// keep: true}) and the source_id range it covers.
type PlanSyncRequest struct {
	ThreadID           string           `json:"thread_id"`
	Manifest           []map[string]any `json:"manifest"`
	SourceIDAfter      *string          `json:"source_id_after,omitempty"`
	SourceIDThrough    *string          `json:"source_id_through,omitempty"`
	AllowEmptyManifest bool             `json:"allow_empty_manifest,omitempty"`
}

// PlanSyncResponse is the result of plan_context_sync: the manifest
// indexes to create, the entries to update and to delete, and counts.
type PlanSyncResponse struct {
	ThreadID       string       `json:"thread_id"`
	Creates        []int        `json:"creates"`
	Updates        []SyncUpdate `json:"updates"`
	Deletes        []SyncDelete `json:"deletes"`
	DeletesTotal   int          `json:"deletes_total"`
	UnchangedCount int          `json:"unchanged_count"`
	KeptCount      int          `json:"kept_count"`
	ForeignCount   int          `json:"foreign_count"`
}

// SyncUpdate is one planned update: the manifest index, the entry, and
// what changed ("text", "metadata" or "both").
type SyncUpdate struct {
	Index     int    `json:"index"`
	ContextID string `json:"context_id"`
	Change    string `json:"change"`
}

// SyncDelete is one planned delete. Reason is "duplicate" when another
// entry of the same source survives, absent when the manifest does not
// name the source.
type SyncDelete struct {
	ContextID string `json:"context_id"`
	SourceID  string `json:"source_id"`
	Reason    string `json:"reason,omitempty"`
}

// IngestStateRequest is the input of list_ingest_state.
type IngestStateRequest struct {
	ThreadID string `json:"thread_id"`
	Limit    int    `json:"limit,omitempty"` // 1-200; 0 means 100
	Cursor   string `json:"cursor,omitempty"`
}

// IngestStateEntry is one managed entry of list_ingest_state. TextDigest
// is the stored content hash, nil for a legacy entry without one.
type IngestStateEntry struct {
	ContextID  string  `json:"context_id"`
	SourceID   string  `json:"source_id"`
	TextDigest *string `json:"text_digest"`
	MetaDigest string  `json:"meta_digest"`
	SyncedAt   string  `json:"synced_at"`
}

// IngestStatePage is the result of list_ingest_state.
type IngestStatePage struct {
	ThreadID   string             `json:"thread_id"`
	Entries    []IngestStateEntry `json:"entries"`
	Count      int                `json:"count"`
	NextCursor *string            `json:"next_cursor"`
}

// PlanSync compares a corpus manifest with the caller's managed entries
// of a thread (plan_context_sync); it writes nothing.
func (e *Engine) PlanSync(ctx context.Context, req PlanSyncRequest) (*PlanSyncResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := syncplan.New(e.st).Plan(ctx, acc, syncplan.PlanRequest(req))
	if err != nil {
		return nil, err
	}
	return &PlanSyncResponse{ThreadID: p.ThreadID, Creates: p.Creates,
		Updates:      convert(p.Updates, func(u syncplan.Update) SyncUpdate { return SyncUpdate(u) }),
		Deletes:      convert(p.Deletes, func(d syncplan.Delete) SyncDelete { return SyncDelete(d) }),
		DeletesTotal: p.DeletesTotal, UnchangedCount: p.UnchangedCount, KeptCount: p.KeptCount, ForeignCount: p.ForeignCount}, nil
}

// ListIngestState pages through the caller's managed entries of a thread
// (list_ingest_state).
func (e *Engine) ListIngestState(ctx context.Context, req IngestStateRequest) (*IngestStatePage, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := syncplan.New(e.st).List(ctx, acc, syncplan.StateRequest(req))
	if err != nil {
		return nil, err
	}
	return &IngestStatePage{ThreadID: pg.ThreadID, Count: pg.Count, NextCursor: pg.NextCursor,
		Entries: convert(pg.Entries, func(s syncplan.StateEntry) IngestStateEntry { return IngestStateEntry(s) })}, nil
}

// convert converts the elements of an internal package's slice to a
// public type, keeping nil nil (it marshals to null, an empty slice to []).
func convert[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}
