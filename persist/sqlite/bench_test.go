package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/persist/persisttest"
)

// benchStore builds a file database of n entries (persisttest.BenchFill).
func benchStore(b *testing.B, n int) (*Store, int) {
	b.Helper()
	s, err := Open(context.Background(), Options{Path: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, persisttest.BenchFill(b, s, n, false)
}

// BenchmarkSearch measures the page query of search_context with a thread
// and a metadata status filter (limit 30), as seen by one principal.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s, threads := benchStore(b, n)
			persisttest.BenchSearch(b, s, threads)
		})
	}
}
