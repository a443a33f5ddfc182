package vector

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// benchSizes are the collection sizes BenchmarkCompare sweeps: 10k by
// default; CONTEXTD_VECTOR_BENCH_N=100000 (or a list "10000,100000") for
// the acceptance figures. Every size uses the same clustered 384-d data
// (seed 1) and 200 held-out queries.
func benchSizes() []int {
	s := os.Getenv("CONTEXTD_VECTOR_BENCH_N")
	if s == "" {
		return []int{10000}
	}
	var out []int
	for _, f := range splitComma(s) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// quantiles returns the median and 99th percentile of ds in microseconds.
func quantiles(ds []time.Duration) (float64, float64) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return us(s[len(s)/2]), us(s[min(len(s)-1, len(s)*99/100)])
}

// BenchmarkCompare measures, in one run on the same vectors: our HNSW,
// the exact scan, and github.com/coder/hnsw v0.6.1 (a peer only — see
// docs/architecture.md for why it is not used). It reports
// build rate, query median and p99, recall@10 against the exact scan, and
// heap bytes per vector. b.N counts queries.
//
//	CONTEXTD_VECTOR_BENCH_N=100000 go test ./vector -run XXX -bench Compare -benchtime 2000x -timeout 30m
func BenchmarkCompare(b *testing.B) {
	const dim, nq, k = 384, 200, 10
	ctx := context.Background()
	for _, n := range benchSizes() {
		vecs := clustered(1, n+nq, dim, 0.6)
		data, queries := vecs[:n], vecs[n:]

		before := heapInUse()
		t0 := time.Now()
		ours := build(b, data, Options{})
		buildOurs := time.Since(t0)
		bytesOurs := float64(heapInUse()-before) / float64(n)

		truth := make([][]uint64, nq)
		for i, q := range queries {
			hs, _ := ours.Search(ctx, q, k, SearchOptions{Exact: true})
			for _, h := range hs {
				truth[i] = append(truth[i], h.Key)
			}
		}
		recall := func(i int, keys []uint64) int {
			in := map[uint64]bool{}
			for _, x := range truth[i] {
				in[x] = true
			}
			c := 0
			for _, x := range keys {
				if in[x] {
					c++
				}
			}
			return c
		}

		type impl struct {
			name  string
			build time.Duration
			bytes float64
			query func(q []float32) []uint64
		}
		impls := []impl{
			{"ours", buildOurs, bytesOurs, func(q []float32) []uint64 {
				hs, _ := ours.Search(ctx, q, k, SearchOptions{})
				out := make([]uint64, len(hs))
				for i, h := range hs {
					out[i] = h.Key
				}
				return out
			}},
			{"ours-ef32", buildOurs, bytesOurs, func(q []float32) []uint64 {
				hs, _ := ours.Search(ctx, q, k, SearchOptions{Ef: 32})
				out := make([]uint64, len(hs))
				for i, h := range hs {
					out[i] = h.Key
				}
				return out
			}},
			{"ours-ef128", buildOurs, bytesOurs, func(q []float32) []uint64 {
				hs, _ := ours.Search(ctx, q, k, SearchOptions{Ef: 128})
				out := make([]uint64, len(hs))
				for i, h := range hs {
					out[i] = h.Key
				}
				return out
			}},
			{"exact", 0, float64(dim * 4), func(q []float32) []uint64 {
				hs, _ := ours.Search(ctx, q, k, SearchOptions{Exact: true})
				out := make([]uint64, len(hs))
				for i, h := range hs {
					out[i] = h.Key
				}
				return out
			}},
		}
		{
			before := heapInUse()
			g := hnsw.NewGraph[uint64]()
			g.M, g.EfSearch, g.Distance = 16, 100, hnsw.CosineDistance
			t0 := time.Now()
			for i, v := range data {
				g.Add(hnsw.MakeNode(uint64(i), v))
			}
			impls = append(impls, impl{"coder-hnsw", time.Since(t0), float64(heapInUse()-before) / float64(n), func(q []float32) []uint64 {
				ns := g.Search(q, k)
				out := make([]uint64, len(ns))
				for i, nd := range ns {
					out[i] = nd.Key
				}
				return out
			}})
		}

		for _, im := range impls {
			b.Run(fmt.Sprintf("%s/n=%d", im.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for _, q := range queries { // warm caches and the scratch pool
					_ = im.query(q)
				}
				lat := make([]time.Duration, nq)
				found := 0
				for i, q := range queries {
					t0 := time.Now()
					keys := im.query(q)
					lat[i] = time.Since(t0)
					found += recall(i, keys)
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					_ = im.query(queries[i%nq])
				}
				b.StopTimer()
				p50, p99 := quantiles(lat)
				b.ReportMetric(p50, "p50-µs")
				b.ReportMetric(p99, "p99-µs")
				b.ReportMetric(float64(found)/float64(nq*k), "recall@10")
				b.ReportMetric(im.bytes, "heap-B/vec")
				if im.build > 0 {
					b.ReportMetric(float64(n)/im.build.Seconds(), "build-vec/s")
				}
			})
		}
	}
}

// BenchmarkFilteredSwitch measures filtered graph traversal against the
// exact scan of the allowed set, over allowed fractions, to place the
// switch (Options.ExactBelow / ExactFraction). Both strategies are forced;
// the report gives each one's latency and recall@10.
//
//	go test ./vector -run XXX -bench FilteredSwitch -benchtime 200x
func BenchmarkFilteredSwitch(b *testing.B) {
	const dim, nq, k = 384, 100, 10
	ctx := context.Background()
	for _, n := range benchSizes() {
		vecs := clustered(1, n+nq, dim, 0.6)
		// ExactBelow 1 and a tiny SwitchCost force the graph path.
		ix := build(b, vecs[:n], Options{ExactBelow: 1, SwitchCost: 1e-12})
		for _, pct := range []float64{1, 2, 5, 10, 20, 30, 50} {
			mod := uint64(100 / pct * 10)
			allow := func(key uint64) bool { return (key*2654435761)%mod < 10 } // pct % of keys, scattered
			for _, mode := range []string{"graph", "exact"} {
				so := SearchOptions{Allow: allow, Exact: mode == "exact"}
				b.Run(fmt.Sprintf("n=%d/allowed=%g%%/%s", n, pct, mode), func(b *testing.B) {
					b.ReportAllocs()
					r := recallAt(b, ix, vecs[n:], k, so)
					// The median of single queries resists the spikes a
					// shared machine adds to the mean.
					lat := make([]time.Duration, 0, nq)
					b.ResetTimer()
					for i := 0; b.Loop(); i++ {
						t0 := time.Now()
						_, _ = ix.Search(ctx, vecs[n+i%nq], k, so)
						if len(lat) < nq {
							lat = append(lat, time.Since(t0))
						}
					}
					b.StopTimer()
					p50, _ := quantiles(lat)
					b.ReportMetric(p50, "p50-µs")
					b.ReportMetric(r, "recall@10")
				})
			}
		}
	}
}
