package sqlite

import (
	"context"
	"strings"
	"testing"
)

// TestHasCodesReadsIndex: the start-up check's questions whether any
// chunk holds a code, or lacks one, read the partial indexes of migrations
// 0008 and 0009, not every row of embedding_chunks.
func TestHasCodesReadsIndex(t *testing.T) {
	s := openFile(t, tempDB(t))
	for _, c := range []struct{ where, index string }{
		{"code IS NOT NULL", "idx_embedding_chunks_coded"},
		{"code IS NULL", "idx_embedding_chunks_uncoded"},
	} {
		if plan := queryPlan(t, s, "SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE "+c.where+")"); !strings.Contains(plan, c.index) {
			t.Fatalf("%s: plan %q does not use %s", c.where, plan, c.index)
		}
	}
}

func queryPlan(t *testing.T, s *Store, q string) string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	plan := ""
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "; "
	}
	return plan
}
