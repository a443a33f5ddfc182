package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// base is the creation time of test entry 1; entry n is n seconds later.
var base = time.Date(2025, 11, 29, 10, 0, 0, 0, time.UTC)

// tid returns the n-th test id: 32 hex digits, in creation order.
func tid(n int) string { return fmt.Sprintf("%032x", n) }

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

// entry builds a private text entry n owned by owner in thread.
func entry(n int, thread, source, owner string) persist.Entry {
	at := base.Add(time.Duration(n) * time.Second)
	return persist.Entry{
		ID: tid(n), ThreadID: thread, Source: source, ContentType: "text",
		Text: fmt.Sprintf("entry %d", n), ContentHash: fmt.Sprintf("hash%d", n),
		Owner: owner, Visibility: "private", CreatedAt: at, UpdatedAt: at,
	}
}

func meta(t testing.TB, v any) json.RawMessage {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// insert stores es (each with its grants, if any) in one write.
func insert(t testing.TB, s *Store, es []persist.Entry, grants map[string][]persist.Grant) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, func(tx persist.Tx) error {
		for i := range es {
			if err := tx.Insert(ctx, &es[i], grants[es[i].ID]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
}

func idsOf(es []persist.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func eqStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func search(t testing.TB, r persist.Reader, acc persist.Access, q persist.SearchQuery) []persist.Entry {
	t.Helper()
	res, err := r.Search(context.Background(), acc, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res.Entries
}
