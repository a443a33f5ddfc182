package sqlite

import (
	"context"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// TestPersistSuite runs the storage behaviours every backend shares on a
// file database, on a private in-memory one, and without foreign keys
// (SQLITE_FOREIGN_KEYS=false, where the store and triggers remove what
// ON DELETE CASCADE would).
func TestPersistSuite(t *testing.T) {
	noFK := false
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"file", Options{}},
		{"memory", Options{Path: ":memory:"}},
		{"memory without foreign keys", Options{Path: ":memory:", ForeignKeys: &noFK}},
	} {
		t.Run(c.name, func(t *testing.T) {
			persisttest.Run(t, func(t *testing.T) persist.Store {
				o := c.o
				if o.Path == "" {
					o.Path = tempDB(t)
				}
				st, err := Open(context.Background(), o)
				if err != nil {
					t.Fatalf("open %s: %v", o.Path, err)
				}
				return st
			})
		})
	}
}
