package syncplan

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// StateRequest is the input of list_ingest_state.
type StateRequest = api.IngestStateRequest

// StateEntry is one managed entry of list_ingest_state. TextDigest is the
// stored content hash, null for a legacy entry without one.
type StateEntry = api.IngestStateEntry

// StatePage is the result of list_ingest_state.
type StatePage = api.IngestStatePage

// Limits of list_ingest_state.
const (
	DefaultStateLimit = 100
	MaxStateLimit     = 200
)

// invalidCursor is the reference text for a cursor this server did not
// write.
const invalidCursor = "invalid cursor"

// encodeCursor writes the opaque cursor after position pos: base64url of
// the JSON pair [source_id, context_id].
func encodeCursor(pos persist.IngestPos) string {
	b, _ := json.Marshal([2]string{pos.SourceID, pos.ID}) // strings always encode
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor back; anything not written by encodeCursor
// (bad base64, not a pair of strings, an impossible source id or entry
// id) is refused.
func decodeCursor(s string) (persist.IngestPos, error) {
	bad := cerrors.Invalidf(invalidCursor)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) > 4*MaxSourceIDLen+128 {
		return persist.IngestPos{}, bad
	}
	var pair []string
	if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 {
		return persist.IngestPos{}, bad
	}
	n := utf8.RuneCountInString(pair[0])
	if n < 1 || n > MaxSourceIDLen || len(pair[1]) != 32 || !isHex(pair[1]) {
		return persist.IngestPos{}, bad
	}
	return persist.IngestPos{SourceID: pair[0], ID: pair[1]}, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// List returns one page of the caller's own managed entries of a thread
// . Other principals' entries are excluded in SQL, so they never
// take a slot; entries whose block is invalid are skipped, and the read
// goes on until the page is full. One entry past the page is looked up,
// so next_cursor is null on the last page even when it ends exactly at
// the last entry.
func (p *Planner) List(ctx context.Context, acc persist.Access, req StateRequest) (*StatePage, error) {
	if err := checkThread(req.ThreadID); err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultStateLimit
	}
	if limit < 1 || limit > MaxStateLimit {
		return nil, cerrors.Invalidf("limit must be between 1 and %d, got %d", MaxStateLimit, req.Limit)
	}
	q := persist.IngestQuery{ThreadID: req.ThreadID, Scope: req.ThreadID, OwnedOnly: true, Limit: limit + 1}
	if req.Cursor != "" {
		pos, err := decodeCursor(req.Cursor)
		if err != nil {
			return nil, err
		}
		q.From = &pos
	}
	out := &StatePage{ThreadID: req.ThreadID, Entries: []StateEntry{}}
	more := false
	err := p.scan(ctx, acc, q, func(r persist.IngestRow, b Block) bool {
		if len(out.Entries) == limit {
			more = true // the lookahead entry: another page follows
			return false
		}
		e := StateEntry{ContextID: r.ID, SourceID: r.SourceID, MetaDigest: b.MetaDigest, SyncedAt: b.SyncedAt}
		if r.ContentHash != "" {
			h := r.ContentHash
			e.TextDigest = &h
		}
		out.Entries = append(out.Entries, e)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("list ingest state: %w", err)
	}
	out.Count = len(out.Entries)
	if more {
		last := out.Entries[len(out.Entries)-1]
		c := encodeCursor(persist.IngestPos{SourceID: last.SourceID, ID: last.ContextID})
		out.NextCursor = &c
	}
	return out, nil
}
