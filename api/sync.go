package api

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
