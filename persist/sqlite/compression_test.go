package sqlite

import (
	"context"
	"strings"
	"testing"
)

// TestHasCodesReadsIndex: the start-up check's question whether any
// chunk holds a code reads the partial index of migration 0008, not every
// row of embedding_chunks.
func TestHasCodesReadsIndex(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE code IS NOT NULL)")
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
	if !strings.Contains(plan, "idx_embedding_chunks_coded") {
		t.Fatalf("plan %q does not use idx_embedding_chunks_coded", plan)
	}
}
