package sqlite

// An equality on an indexed metadata field is served by the
// field's (folded value, created_at, id) index in page order, in both case
// modes, whatever the value's selectivity (with a thread, the thread's
// index drives and the condition filters), and
// returns exactly what the filter selects (oracle: the same filter
// evaluated in Go over every entry).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestSearchIndexedMetadataOrderPlan(t *testing.T) {
	s := openMem(t)
	const n = 600
	status := func(i int) string {
		switch {
		case i%100 == 7:
			return "Blocked"
		case i%2 == 0:
			return "active"
		}
		return "done"
	}
	var es []persist.Entry
	for i := 1; i <= n; i++ {
		e := entry(i, fmt.Sprintf("t%d", i%4), "user", "alice")
		e.Metadata = json.RawMessage(fmt.Sprintf(`{"status":%q,"n":%d}`, status(i), i))
		es = append(es, e)
	}
	es[10].Metadata = json.RawMessage(`{"status":7}`) // a number: never a string match
	insert(t, s, es, nil)
	cases := []struct {
		name   string
		f      persist.Filter
		oracle func(i int) bool
	}{
		{"exact active", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "active", CaseSensitive: true}}},
			func(i int) bool { return status(i) == "active" }},
		{"exact blocked (case differs)", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "blocked", CaseSensitive: true}}},
			func(i int) bool { return false }},
		{"folded BLOCKED", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "BLOCKED"}}},
			func(i int) bool { return status(i) == "Blocked" }},
		{"thread + exact done", persist.Filter{ThreadID: "t1", Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "done", CaseSensitive: true}}},
			func(i int) bool { return i%4 == 1 && status(i) == "done" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Search(context.Background(), alice, persist.SearchQuery{Filter: c.f, Limit: 1000, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if c.f.ThreadID == "" && !strings.Contains(res.Plan, "idx_metadata_status") {
				t.Errorf("plan does not use idx_metadata_status:\n%s", res.Plan)
			}
			if c.f.ThreadID != "" && !strings.Contains(res.Plan, "idx_entries_thread_created") {
				t.Errorf("with a thread, the plan does not use the thread's index:\n%s", res.Plan)
			}
			if strings.Contains(res.Plan, "TEMP B-TREE") {
				t.Errorf("plan sorts instead of walking an index in page order:\n%s", res.Plan)
			}
			var want []string
			for i := n; i >= 1; i-- { // newest first
				if i != 11 && c.oracle(i) {
					want = append(want, tid(i))
				}
			}
			var got []string
			for _, e := range res.Entries {
				got = append(got, e.ID)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("got %d entries, want %d\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
		})
	}
}
