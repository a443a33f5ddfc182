package vector

import (
	"context"
	"math/rand/v2"
	"testing"
)

// clustered returns n vectors of dim dimensions drawn around 100 Gaussian
// centroids (spread 1, noise sigma), fixed by seed: the shape of real
// embeddings (topics) rather than uniform noise, on which every ANN index
// looks better than it is.
func clustered(seed uint64, n, dim int, sigma float32) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	const k = 100
	cents := make([][]float32, k)
	for i := range cents {
		cents[i] = make([]float32, dim)
		for j := range cents[i] {
			cents[i][j] = float32(r.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := cents[r.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + sigma*float32(r.NormFloat64())
		}
		normalize(v)
		out[i] = v
	}
	return out
}

func build(tb testing.TB, vecs [][]float32, o Options) *Index {
	tb.Helper()
	ix, err := New(len(vecs[0]), o)
	if err != nil {
		tb.Fatal(err)
	}
	for i, v := range vecs {
		if err := ix.Add(uint64(i), v); err != nil {
			tb.Fatal(err)
		}
	}
	return ix
}

// recallAt measures the mean recall@k of the graph against the exact scan
// over the same index, for the given queries and allowed set.
func recallAt(tb testing.TB, ix *Index, queries [][]float32, k int, so SearchOptions) float64 {
	tb.Helper()
	ctx := context.Background()
	found, total := 0, 0
	for _, q := range queries {
		got, err := ix.Search(ctx, q, k, so)
		if err != nil {
			tb.Fatal(err)
		}
		ex := so
		ex.Exact = true
		want, err := ix.Search(ctx, q, k, ex)
		if err != nil {
			tb.Fatal(err)
		}
		in := map[uint64]bool{}
		for _, h := range want {
			in[h.Key] = true
		}
		for _, h := range got {
			if in[h.Key] {
				found++
			}
		}
		total += len(want)
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}
