package postgres

import (
	"context"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// open opens a store on a fresh schema of the test server (skipping
// without one), closed when t ends.
func open(t testing.TB, o Options) *Store {
	t.Helper()
	o.URL, o.Schema = pgtest.Schema(t)
	st, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestPersistSuite runs the storage behaviours every backend shares, each
// test on a schema of its own, with prepared statements cached (the
// default) and with none (StatementCacheSize 0, as behind a
// transaction-mode pooler).
func TestPersistSuite(t *testing.T) {
	none := 0
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"cached statements", Options{}},
		{"no statement cache", Options{StatementCacheSize: &none}},
	} {
		t.Run(c.name, func(t *testing.T) {
			persisttest.Run(t, func(t *testing.T) persist.Store {
				o := c.o
				o.URL, o.Schema = pgtest.Schema(t)
				st, err := Open(context.Background(), o)
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				return st
			})
		})
	}
}
