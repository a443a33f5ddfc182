package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

// TestSearchPlan: Explain returns SQLite's query plan, and a thread filter
// uses the thread index.
func TestSearchPlan(t *testing.T) {
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t1", "user", "alice"), entry(2, "t2", "user", "alice")}, nil)
	res, err := s.Search(context.Background(), alice, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1"}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Plan, "idx_entries_thread_created") {
		t.Fatalf("plan does not use the thread index:\n%s", res.Plan)
	}
	if len(res.Entries) != 1 || res.Entries[0].ID != tid(1) {
		t.Fatalf("entries = %+v", res.Entries)
	}
}
