package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// The backend-neutral behaviours are in persist/persisttest (run by
// TestPersistSuite); the tests of this package cover what only SQLite has.
// They build their data with the suite's helpers.
var (
	tid    = persisttest.ID
	nums   = persisttest.IDs
	entry  = persisttest.NewEntry
	insert = persisttest.Insert
	embs   = persisttest.Embeddings
	setEmb = persisttest.SetEmbeddings
	alice  = persist.Access{Principal: "alice"}
)

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Path: ":memory:"})
	if err != nil {
		t.Fatalf("open :memory: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openFile(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func tempDB(t testing.TB) string { return filepath.Join(t.TempDir(), "sub", "ctx.db") }

// readable counts the entries alice reads in s.
func readable(t testing.TB, s *Store) int {
	t.Helper()
	res, err := s.Search(context.Background(), alice, persist.SearchQuery{})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	return len(res.Entries)
}

// count returns the rows of table, all of them or of entry id.
func count(t testing.TB, s *Store, table, id string) int {
	t.Helper()
	col := "context_entry_id"
	if table == "embedding_chunks" || table == "embedding_metadata" {
		col = "context_id"
	}
	q, args := "SELECT count(*) FROM "+table, []any{}
	if id != "" {
		q, args = q+" WHERE "+col+" = ?", append(args, id)
	}
	var n int
	if err := s.r.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
