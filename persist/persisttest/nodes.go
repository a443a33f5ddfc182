package persisttest

import (
	"context"
	"testing"

	"github.com/contextd/contextd/persist"
)

func (s suite) nodeSummaries(t *testing.T) {
	t.Run("Replace", s.nodeSummariesReplace)
}

// nodeSummariesReplace: ReplaceNodeSummaries replaces all of an entry's
// summaries, NodeSummaries lists them by start then node id, counts follow
// access, and the summaries go with their entry.
func (s suite) nodeSummariesReplace(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a, b := NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice")
	b.Visibility = "public"
	Insert(t, st, []persist.Entry{a, b}, nil)
	replace := func(id string, ns []persist.NodeSummary) {
		t.Helper()
		write(t, st, func(ctx context.Context, tx persist.Tx) error { return tx.ReplaceNodeSummaries(ctx, id, ns) })
	}
	replace(a.ID, []persist.NodeSummary{{NodeID: "x/y", Start: 5, End: 9, Summary: "two"}, {NodeID: "x", Start: 0, End: 9, Summary: "one"}})
	replace(b.ID, []persist.NodeSummary{{NodeID: "z", Start: 0, End: 3, Summary: "pub"}})
	got, err := st.NodeSummaries(ctx, a.ID)
	if err != nil || len(got) != 2 || got[0].NodeID != "x" || got[1].Summary != "two" || got[1].Start != 5 || got[1].End != 9 {
		t.Fatalf("NodeSummaries = %+v, %v", got, err)
	}
	for _, c := range []struct {
		acc  persist.Access
		want int
	}{{alice, 3}, {bob, 1}} {
		if n, err := st.CountNodeSummaries(ctx, c.acc); err != nil || n != c.want {
			t.Fatalf("count as %s = %d, %v; want %d", c.acc.Principal, n, err, c.want)
		}
	}
	replace(a.ID, nil)
	if got, _ := st.NodeSummaries(ctx, a.ID); len(got) != 0 {
		t.Fatalf("replace with none left %+v", got)
	}
	replace(a.ID, []persist.NodeSummary{{NodeID: "x", Start: 0, End: 9, Summary: "again"}})
	deleteIDs(t, st, a.ID)
	if n, _ := st.CountNodeSummaries(ctx, alice); n != 1 {
		t.Fatalf("node summaries of a deleted entry remain: %d rows", n)
	}
	if got, _ := st.NodeSummaries(ctx, a.ID); len(got) != 0 {
		t.Fatalf("node summaries of a deleted entry: %+v", got)
	}
	if got, _ := st.NodeSummaries(ctx, b.ID); len(got) != 1 || got[0].Summary != "pub" {
		t.Fatalf("node summaries of another entry: %+v", got)
	}
}
