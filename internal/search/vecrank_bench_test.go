package search

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// BenchmarkVectorRank is the in-process vector leg's ranking (the chunk
// map's filter on every node the walk reaches, the best chunk per entry,
// the ids) over the entries of benchStartupStore (64-d, one chunk each),
// unfiltered and for one thread of 8, with 200 random queries of a fixed
// seed; it reports the median per Rank. 100k is in the long tier.
func BenchmarkVectorRank(b *testing.B) {
	sizes := benchSizes(b, 10_000)
	ctx := context.Background()
	for _, n := range sizes {
		st := benchStartupStore(b, b.TempDir(), n)
		feed := follow.NewFeed(st)
		vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: 64, Progress: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(11, 11))
		queries := make([][]float32, 200)
		for i := range queries {
			queries[i] = make([]float32, 64)
			for k := range queries[i] {
				queries[i][k] = float32(r.NormFloat64())
			}
		}
		for _, f := range []struct {
			name string
			f    persist.Filter
		}{{"all", persist.Filter{}}, {"thread", persist.Filter{ThreadID: "bench-3"}}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, f.name), func(b *testing.B) {
				b.ReportAllocs()
				acc := persist.Access{Principal: "local"}
				var ds []time.Duration
				for i := range b.N {
					t0 := time.Now()
					hits, _, err := vs.Rank(ctx, acc, VectorQuery{Filter: f.f, Vector: queries[i%len(queries)], Depth: 100})
					ds = append(ds, time.Since(t0))
					if err != nil || len(hits) != 100 {
						b.Fatalf("%d hits, %v", len(hits), err)
					}
				}
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, "median-µs")
			})
		}
		feed.Close()
		if err := vs.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
