// Package syncplan owns corpus sync on the server side: the reserved
// metadata.ingest block that makes an entry "managed" (A.9), the
// validation of plan_context_sync requests, the plan itself
// (R-141..R-146) and the pages of list_ingest_state with their opaque
// cursor (R-150..R-152). It reads through persist.IngestReader and never
// writes: a client applies a plan with the batch tools.
//
//	p := syncplan.New(store)
//	plan, err := p.Plan(ctx, acc, syncplan.PlanRequest{ThreadID: "kb:handbook",
//		Manifest: []map[string]any{syncplan.Item{SourceID: "a.md", TextDigest: td, MetaDigest: md}.Arg()}})
//	// plan.Creates == []int{0} until an entry with the block is stored
//
// Only the caller's own managed entries are planned or listed; another
// principal's readable ones only add to foreign_count, and unreadable
// ones are invisible (the access predicate is applied in SQL).
package syncplan

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Block is the reserved metadata.ingest block of a managed entry.
type Block struct {
	Scope      string `json:"scope"`
	SourceID   string `json:"source_id"`
	MetaDigest string `json:"meta_digest"`
	SyncedAt   string `json:"synced_at"`
}

// MaxSourceIDLen is the longest source_id, in code points.
const MaxSourceIDLen = 256

// Map returns the block as a metadata value: metadata["ingest"] = b.Map().
func (b Block) Map() map[string]any {
	return map[string]any{"scope": b.Scope, "source_id": b.SourceID, "meta_digest": b.MetaDigest, "synced_at": b.SyncedAt}
}

// ParseBlock decodes a stored metadata.ingest object and reports whether
// it is a valid block (A.9 [D]): scope a non-empty string, source_id a
// string of 1 to 256 code points, meta_digest 64 lowercase hex, synced_at
// an ISO 8601 timestamp string. An invalid block leaves its entry
// unmanaged: the sync tools neither plan nor count nor list it.
func ParseBlock(raw json.RawMessage) (Block, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return Block{}, false
	}
	var b Block
	for name, dst := range map[string]*string{"scope": &b.Scope, "source_id": &b.SourceID,
		"meta_digest": &b.MetaDigest, "synced_at": &b.SyncedAt} {
		v, ok := fields[name]
		if !ok || json.Unmarshal(v, dst) != nil || string(v) == "null" {
			return Block{}, false
		}
	}
	n := utf8.RuneCountInString(b.SourceID)
	if b.Scope == "" || n < 1 || n > MaxSourceIDLen || !IsDigest(b.MetaDigest) || !isTimestamp(b.SyncedAt) {
		return Block{}, false
	}
	return b, true
}

// IsDigest reports whether s is a SHA-256 hex digest as stored: 64
// lowercase hex characters.
func IsDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// timestampLayouts are the ISO 8601 forms a synced_at may take: what
// Python's isoformat() and Go's RFC 3339 write, with or without a zone.
var timestampLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999"}

func isTimestamp(s string) bool {
	for _, l := range timestampLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}
