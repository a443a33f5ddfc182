package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// TestErrorTexts: the errors the suite only requires to happen name this
// backend and what failed.
func TestErrorTexts(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	err := s.Write(ctx, func(tx persist.Tx) error {
		dup := entry(1, "t", "user", "alice")
		return tx.Insert(ctx, &dup, nil)
	})
	if err == nil || !strings.HasPrefix(err.Error(), "sqlite: insert entry") {
		t.Fatalf("duplicate insert err = %v", err)
	}
	for name, cond := range persisttest.BadMetaConds() {
		t.Run(name, func(t *testing.T) {
			_, err := s.Search(ctx, alice, persist.SearchQuery{Filter: persist.Filter{Meta: []persist.MetaCond{cond}}})
			if err == nil || !strings.HasPrefix(err.Error(), "sqlite: ") {
				t.Fatalf("err = %v, want a sqlite: error", err)
			}
		})
	}
}
