package search

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/quant"
	"github.com/contextd/contextd/vector"
)

// TestGraphRecallSentences100k_C14 (long tier) gates the graph the engine
// builds with the default configuration (graphOptions with compression on
// and the floats kept: float32, L2, floatEfConstruction) on 100k sentence
// vectors of the built-in embedder (testcorpus.SentenceVectors), 500
// held-out sentences as queries, searched as vecIndex.search does (k =
// rank.Depth, the best 10 kept): recall@10 against the exact top 10 of
// the float32 vectors must stay ≥ 0.95, the gate the cheaper construction
// is held to.
func TestGraphRecallSentences100k_C14(t *testing.T) {
	testtier.Long(t)
	const n, nq, k = 100_000, 500, 10
	all, _, err := testcorpus.SentenceVectors()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < n+nq {
		t.Skipf("the Go source tree gives %d distinct sentence vectors, fewer than %d", len(all), n+nq)
	}
	data, queries := all[:n], all[n:n+nq]
	vo, err := graphOptions(len(data[0]), quant.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if vo.Quantizer != nil || vo.Int8 || vo.EfConstruction != floatEfConstruction {
		t.Fatalf("the default graph options are %+v, want float32 at efConstruction %d", vo, floatEfConstruction)
	}
	g, err := vector.New(len(data[0]), vo)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i, v := range data {
		if err := g.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("built %d vectors at efConstruction %d in %v", n, vo.EfConstruction, time.Since(t0).Round(time.Millisecond))
	found := 0
	for _, q := range queries {
		hits, err := g.Search(context.Background(), q, rank.Depth, vector.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exact := exactL2(data, q, k)
		for _, h := range hits[:min(k, len(hits))] {
			if slices.Contains(exact, h.Key) {
				found++
			}
		}
	}
	r := float64(found) / float64(nq*k)
	t.Logf("recall@10 of the engine's graph search = %.4f (%d queries)", r, nq)
	if r < 0.95 {
		t.Errorf("recall@10 = %.4f at efConstruction %d, want ≥ 0.95", r, vo.EfConstruction)
	}
}

// exactL2 is the keys of the k vectors of data nearest to q by float32
// squared L2 distance (ties by key), nearest first.
func exactL2(data [][]float32, q []float32, k int) []uint64 {
	type hit struct {
		key uint64
		d   float32
	}
	best := make([]hit, 0, k+1)
	for i, v := range data {
		var d float32
		for j, x := range v {
			e := x - q[j]
			d += e * e
		}
		if len(best) == k && d >= best[k-1].d {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, d, func(h hit, d float32) int {
			if h.d <= d {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, at, hit{uint64(i), d})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]uint64, len(best))
	for i, h := range best {
		out[i] = h.key
	}
	return out
}
