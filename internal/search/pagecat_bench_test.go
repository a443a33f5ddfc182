package search

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/internal/follow"
)

// BenchmarkPageCatalogOpen is the native backend's start-up of
// search_context's catalog over a database shaped as contextd bench's
// (metadata status, priority, seq): "snapshot" decodes pagecat.snap and
// replays nothing; "sql" removes it first and times the rebuild from SQL
// until the catalog serves pages (in the server it runs in the
// background). 100,000 entries are in the long tier.
func BenchmarkPageCatalogOpen(b *testing.B) {
	sizes := benchSizes(b, 10_000)
	ctx := context.Background()
	for _, n := range sizes {
		dir := b.TempDir()
		st := pageBenchStore(b, dir, n)
		idx := filepath.Join(dir, "ctx.db.index")
		open := func(b *testing.B) *FullText {
			ft, err := OpenFullText(ctx, st, follow.NewFeed(st), FullTextOptions{Backend: Native, Dir: idx, Progress: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			waitPages(b, ft)
			return ft
		}
		if err := open(b).Close(); err != nil { // writes the snapshot
			b.Fatal(err)
		}
		for _, mode := range []string{"snapshot", "sql"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if mode == "sql" {
						b.StopTimer()
						if err := os.Remove(filepath.Join(idx, pageCatalogFile)); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					ft := open(b)
					b.StopTimer()
					if err := ft.Close(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			})
		}
	}
}
