package persisttest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/contextd/contextd/persist"
)

func (s suite) ingest(t *testing.T) {
	t.Run("Entries", s.ingestEntries)
}

// ingestEntries: IngestEntries returns the readable entries of the thread
// whose metadata.ingest has the scope and a string source_id, in
// (source_id, id) code-point order, inside the source bounds and after the
// keyset position; OwnedOnly drops every other owner's entry.
func (s suite) ingestEntries(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	block := func(scope string, sid any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"ingest": map[string]any{"scope": scope, "source_id": sid, "meta_digest": "m"}, "x": 1})
		return b
	}
	type spec struct {
		owner, vis, thread, scope string
		sid                       any
	}
	specs := []spec{
		{"alice", "private", "kb", "kb", "b"},    // 1
		{"alice", "private", "kb", "kb", "a"},    // 2
		{"alice", "private", "kb", "kb", "é"},    // 3: after "z" by code point
		{"alice", "private", "kb", "kb", "b"},    // 4: same source, later id
		{"bob", "public", "kb", "kb", "c"},       // 5: readable to alice
		{"bob", "private", "kb", "kb", "d"},      // 6: hidden from alice
		{"alice", "private", "kb", "other", "e"}, // 7: another scope
		{"alice", "private", "other", "kb", "f"}, // 8: another thread
		{"alice", "private", "kb", "kb", 7},      // 9: source_id not a string
		{"alice", "private", "kb", "kb", "Z"},    // 10: upper case sorts first
	}
	var es []persist.Entry
	for i, sp := range specs {
		e := NewEntry(i+1, sp.thread, "agent", sp.owner)
		e.Visibility = sp.vis
		e.Metadata = block(sp.scope, sp.sid)
		es = append(es, e)
	}
	plain := NewEntry(11, "kb", "agent", "alice") // no metadata at all
	es = append(es, plain)
	Insert(t, st, es, nil)
	str := func(s string) *string { return &s }
	rows := func(acc persist.Access, q persist.IngestQuery) string {
		t.Helper()
		q.ThreadID, q.Scope = "kb", "kb"
		got, err := st.IngestEntries(ctx, acc, q)
		if err != nil {
			t.Fatalf("IngestEntries: %v", err)
		}
		out := ""
		for _, r := range got {
			var b struct {
				SourceID string `json:"source_id"`
			}
			if err := json.Unmarshal(r.Ingest, &b); err != nil || b.SourceID != r.SourceID {
				t.Fatalf("block %s does not match source %q: %v", r.Ingest, r.SourceID, err)
			}
			for n := 1; n <= len(specs); n++ {
				if r.ID == ID(n) {
					out += fmt.Sprintf("%s:%d:%s ", r.SourceID, n, r.Owner)
				}
			}
			if r.ContentHash == "" {
				t.Fatalf("row %s without its content hash", r.ID)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		acc  persist.Access
		q    persist.IngestQuery
		want string
	}{
		{"readable", alice, persist.IngestQuery{}, "Z:10:alice a:2:alice b:1:alice b:4:alice c:5:bob é:3:alice "},
		{"owned", alice, persist.IngestQuery{OwnedOnly: true}, "Z:10:alice a:2:alice b:1:alice b:4:alice é:3:alice "},
		{"bob", bob, persist.IngestQuery{}, "c:5:bob d:6:bob "},
		{"range", alice, persist.IngestQuery{SourceAfter: str("a"), SourceThrough: str("c")}, "b:1:alice b:4:alice c:5:bob "},
		{"keyset", alice, persist.IngestQuery{From: &persist.IngestPos{SourceID: "b", ID: ID(1)}, Limit: 2}, "b:4:alice c:5:bob "},
		{"limit", alice, persist.IngestQuery{Limit: 1}, "Z:10:alice "},
	} {
		if got := rows(c.acc, c.q); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
