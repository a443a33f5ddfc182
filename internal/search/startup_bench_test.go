package search

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
)

// benchStartupStore fills a database in dir with n entries of 8 threads
// and 20 tags, each with one 64-d chunk vector (fixed seed), in
// transactions of 1,000.
func benchStartupStore(b *testing.B, dir string, n int) persist.Store {
	b.Helper()
	st := testStore(b, dir)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"heron", "river", "reed", "stone", "moss", "owl", "pine", "frost", "lake", "fern"}
	for i := 0; i < n; i += 1000 {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for j := i; j < min(n, i+1000); j++ {
				text := fmt.Sprintf("%s %s %s %d", words[r.IntN(10)], words[r.IntN(10)], words[r.IntN(10)], j)
				e := &persist.Entry{ID: fmt.Sprintf("%032x", j+1), ThreadID: fmt.Sprintf("bench-%d", j%8), Source: "agent",
					ContentType: "text", Text: text, Tags: []string{fmt.Sprintf("topic-%02d", j%20)},
					Owner: "local", Visibility: "private", CreatedAt: t0.Add(time.Duration(j) * time.Second), UpdatedAt: t0}
				if err := tx.Insert(ctx, e, nil); err != nil {
					return err
				}
				v := make([]float32, 64)
				for k := range v {
					v[k] = float32(r.NormFloat64())
				}
				err := tx.AddEmbeddings(ctx, e.ID, persist.Embeddings{Model: "test", Dim: 64,
					Chunks: []persist.ChunkVector{{Index: 0, Start: 0, End: len(text), Vector: v}}})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return st
}

// BenchmarkStartup is the start-up of the in-process indexes until the
// first full-text and vector answers, at a sweep of sizes: "snapshots"
// loads the catalogs and the chunk map from their snapshots; "sql" removes
// those two files before each open, so they are loaded from SQL as before
// they existed (the Bleve data and the graph come from their snapshots in
// both). Run with -count for interleaved rounds; 100k is in the long tier.
func BenchmarkStartup(b *testing.B) {
	sizes := benchSizes(b, 1_000, 10_000)
	ctx := context.Background()
	for _, n := range sizes {
		dir := b.TempDir()
		st := benchStartupStore(b, dir, n)
		idx, vdir := filepath.Join(dir, "ctx.db.index"), filepath.Join(dir, "ctx.db.vectors")
		open := func(b *testing.B) func() {
			feed := follow.NewFeed(st)
			ft, err := OpenFullText(ctx, st, feed, FullTextOptions{Dir: idx, Progress: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: 64, Dir: vdir, Progress: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			acc := persist.Access{Principal: "local"}
			if _, _, err := ft.Rank(ctx, acc, FullTextQuery{Text: "heron", Depth: 10}); err != nil {
				b.Fatal(err)
			}
			if _, _, err := vs.Rank(ctx, acc, VectorQuery{Vector: make([]float32, 64), Depth: 10}); err != nil {
				b.Fatal(err)
			}
			return func() {
				feed.Close()
				if err := vs.Close(); err != nil {
					b.Fatal(err)
				}
				if err := ft.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}
		open(b)() // the first open builds every snapshot
		for _, mode := range []string{"snapshots", "sql"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if mode == "sql" {
						b.StopTimer()
						for _, f := range []string{filepath.Join(idx, "catalog.snap"), filepath.Join(vdir, vectorStateFile)} {
							if err := os.Remove(f); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
					}
					closeAll := open(b)
					b.StopTimer()
					closeAll() // writes the snapshots again
					b.StartTimer()
				}
			})
		}
	}
}

// benchSizes is a benchmark's size sweep: the quick sizes, and 100,000
// entries in the long tier.
func benchSizes(b *testing.B, quick ...int) []int {
	if testtier.On(b) {
		return append(quick, 100_000)
	}
	return quick
}
