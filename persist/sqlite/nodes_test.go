package sqlite

import (
	"context"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestNodeSummaries(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	a, b := entry(1, "t", "user", "alice"), entry(2, "t", "user", "alice")
	b.Visibility = "public"
	insert(t, s, []persist.Entry{a, b}, nil)
	replace := func(id string, ns []persist.NodeSummary) {
		t.Helper()
		err := s.Write(ctx, func(tx persist.Tx) error {
			return tx.(persist.NodeSummaryWriter).ReplaceNodeSummaries(ctx, id, ns)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	replace(a.ID, []persist.NodeSummary{{NodeID: "x/y", Start: 5, End: 9, Summary: "two"}, {NodeID: "x", Start: 0, End: 9, Summary: "one"}})
	replace(b.ID, []persist.NodeSummary{{NodeID: "z", Start: 0, End: 3, Summary: "pub"}})
	got, err := s.NodeSummaries(ctx, a.ID)
	if err != nil || len(got) != 2 || got[0].NodeID != "x" || got[1].Summary != "two" || got[1].Start != 5 {
		t.Fatalf("NodeSummaries = %+v, %v", got, err)
	}
	for _, c := range []struct {
		acc  persist.Access
		want int
	}{{persist.Access{Principal: "alice"}, 3}, {persist.Access{Principal: "bob"}, 1}} {
		if n, err := s.CountNodeSummaries(ctx, c.acc); err != nil || n != c.want {
			t.Fatalf("count as %s = %d, %v; want %d", c.acc.Principal, n, err, c.want)
		}
	}
	replace(a.ID, nil)
	if got, _ := s.NodeSummaries(ctx, a.ID); len(got) != 0 {
		t.Fatalf("replace with none left %+v", got)
	}
	replace(a.ID, []persist.NodeSummary{{NodeID: "x", Start: 0, End: 9, Summary: "again"}})
	if err := s.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, []string{a.ID}); return err }); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountNodeSummaries(ctx, persist.Access{Principal: "alice"}); n != 1 {
		t.Fatalf("node summaries of a deleted entry remain: %d rows", n)
	}
	var rows int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM context_index_nodes WHERE context_entry_id = ?`, a.ID).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("orphan rows %d, %v", rows, err)
	}
}
