package vector

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkIndexHeap reports the heap a graph holds per node: n clustered
// 100-d vectors (the built-in model's size, seed 1) inserted one by one
// into the engine's default graph (float32, L2, efConstruction 64), then
// 50 searches so the pooled search scratch is counted as a server holds
// it. The vectors given to Add are not counted (the index copies them).
// CONTEXTD_VECTOR_BENCH_N sets the sizes (default 10000); -benchtime 1x.
func BenchmarkIndexHeap(b *testing.B) {
	for _, n := range benchSizes() {
		vecs := clustered(1, n+50, 100, 0.6)
		data, queries := vecs[:n], vecs[n:]
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var per float64
			for range b.N {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				ix := build(b, data, Options{Metric: L2, EfConstruction: 64})
				for _, q := range queries {
					if _, err := ix.Search(context.Background(), q, 100, SearchOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&m1)
				per = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(n)
				runtime.KeepAlive(ix)
			}
			b.ReportMetric(per, "heap-B/node")
		})
	}
}
