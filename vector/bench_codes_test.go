package vector

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/quant"
)

// Benchmarks of the graph's storages, one run for the acceptance figures:
//
//	CONTEXTD_VECTOR_BENCH_N=100000 go test ./vector -run '^$' \
//	    -bench 'BenchmarkBuildStorage|BenchmarkQueryStorage' -benchtime 1x
//
// Data: clustered vectors (seed 1), 100-d (the built-in model's size) and
// 384-d; storages float32, 4-bit mse codes with float32 re-ranking, and
// 4-bit mse codes only. Rates are given per CPU second as well as per
// wall second: the machine is shared.

type storageCase struct {
	name string
	o    func(dim int) Options
}

func storages(tb testing.TB) []storageCase {
	q := func(dim int) *quant.Quantizer { return mustQuant(tb, dim, 4, quant.MSE) }
	return []storageCase{
		{"float32", func(int) Options { return Options{} }},
		{"codes+float", func(d int) Options { return Options{Quantizer: q(d), KeepFloat: true} }},
		{"codes", func(d int) Options { return Options{Quantizer: q(d)} }},
	}
}

// BenchmarkBuildStorage inserts n vectors (one build per op).
func BenchmarkBuildStorage(b *testing.B) {
	for _, n := range benchSizes() {
		for _, dim := range []int{100, 384} {
			vecs := clustered(1, n, dim, 0.6)
			for _, sc := range storages(b) {
				b.Run(fmt.Sprintf("n=%d/d=%d/%s", n, dim, sc.name), func(b *testing.B) {
					b.ReportAllocs()
					var cpu time.Duration
					for i := 0; i < b.N; i++ {
						c0 := processCPU()
						build(b, vecs, sc.o(dim))
						cpu += processCPU() - c0
					}
					b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "vectors/s")
					b.ReportMetric(float64(cpu.Microseconds())/float64(n*b.N), "cpu-µs/insert")
				})
			}
		}
	}
}

// BenchmarkQueryStorage reports the median HNSW query (k 10, ef 96) and
// the exact scan per storage, over 200 held-out queries.
func BenchmarkQueryStorage(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes() {
		for _, dim := range []int{100, 384} {
			vecs := clustered(1, n+200, dim, 0.6)
			data, queries := vecs[:n], vecs[n:]
			for _, sc := range storages(b) {
				// Built inside the storage's own level, so -bench can
				// select one storage without building the others.
				b.Run(fmt.Sprintf("n=%d/d=%d/%s", n, dim, sc.name), func(b *testing.B) {
					ix := build(b, data, sc.o(dim))
					for _, exact := range []bool{false, true} {
						mode := "graph"
						if exact {
							mode = "exact"
						}
						b.Run(mode, func(b *testing.B) {
							b.ReportAllocs()
							var ds []time.Duration
							for i := 0; i < b.N; i++ {
								for _, q := range queries {
									t0 := time.Now()
									if _, err := ix.Search(ctx, q, 10, SearchOptions{Exact: exact}); err != nil {
										b.Fatal(err)
									}
									ds = append(ds, time.Since(t0))
								}
							}
							slices.Sort(ds)
							b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "median-µs")
							if exact {
								b.ReportMetric(float64(n)/ds[len(ds)/2].Seconds(), "scored/s")
							}
						})
					}
				})
			}
		}
	}
}
