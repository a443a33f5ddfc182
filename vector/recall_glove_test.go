package vector

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/internal/testtier"
)

// The GloVe sentence set: real English text embedded by the built-in
// embedder (model/builtin, 100-d, unit length): the distinct doc-comment
// sentences of the Go source tree, deduplicated by vector and shuffled
// with a fixed seed (internal/testcorpus.SentenceVectors). The first n
// are the collection and the next ones are held-out queries.

// gloveSet returns n collection vectors and nq held-out query vectors of
// the GloVe sentence set, or skips when the Go source tree holds too few
// sentences. The set is built once per test binary.
func gloveSet(tb testing.TB, n, nq int) (data, queries [][]float32) {
	tb.Helper()
	vecs, _, err := testcorpus.SentenceVectors()
	if err != nil {
		tb.Fatal(err)
	}
	if len(vecs) < n+nq {
		tb.Skipf("the Go source tree gives %d distinct sentence vectors, fewer than %d", len(vecs), n+nq)
	}
	return vecs[:n], vecs[n : n+nq]
}

// TestRecallGloVe100k is the acceptance gate on real sentence
// vectors: 100k Go doc-comment sentences embedded by the built-in
// embedder, indexed at the default settings (Options{}: Cosine, M 16,
// efConstruction 128, efSearch 96), 500 held-out sentences as queries,
// recall@10 against the exact scan ≥ 0.95 unfiltered and ≥ 0.99 with a
// random 1 % of the collection allowed. It also reports (and gates at
// 0.95) the 1 % case forced through the filtered graph traversal, and the
// 10 % case, which the default switch sends through the graph. 34 to 41 s
// on two idle cores (mostly the single-writer build), so it is in the long
// tier (CONTEXTD_LONG=1, internal/testtier).
func TestRecallGloVe100k(t *testing.T) {
	testtier.Long(t)
	const n, nq, k = 100_000, 500, 10
	t0 := time.Now()
	data, queries := gloveSet(t, n, nq)
	all, texts, _ := testcorpus.SentenceVectors()
	t.Logf("corpus: %d distinct sentences, %d distinct vectors; loaded and embedded in %v",
		texts, len(all), time.Since(t0).Round(time.Millisecond))

	t0 = time.Now()
	ix := build(t, data, Options{})
	t.Logf("built %d × %d-d at defaults in %v (%.0f vectors/s)", n, len(data[0]),
		time.Since(t0).Round(time.Millisecond), float64(n)/time.Since(t0).Seconds())

	t0 = time.Now()
	r := recallAt(t, ix, queries, k, SearchOptions{})
	t.Logf("recall@10 at defaults = %.4f (%d queries, %v)", r, nq, time.Since(t0).Round(time.Millisecond))
	if r < 0.95 {
		t.Errorf("recall@10 = %.4f on 100k GloVe sentence vectors, want ≥ 0.95", r)
	}

	subset := func(seed uint64, frac float64) (func(uint64) bool, int) {
		rr := rand.New(rand.NewPCG(seed, 1))
		in := make([]bool, n)
		count := 0
		for i := range in {
			if rr.Float64() < frac {
				in[i] = true
				count++
			}
		}
		return func(key uint64) bool { return key < uint64(n) && in[key] }, count
	}

	allow1, count1 := subset(11, 0.01)
	t.Run("allowed 1%", func(t *testing.T) {
		r := recallAt(t, ix, queries, k, SearchOptions{Allow: allow1, AllowCount: count1})
		t.Logf("recall@10 with %d allowed (1%%) = %.4f", count1, r)
		if r < 0.99 {
			t.Errorf("filtered recall@10 = %.4f, want ≥ 0.99", r)
		}
	})
	t.Run("allowed 1% by graph", func(t *testing.T) {
		// 1 % of 100k is under ExactBelow, so the default switch scans
		// exactly; force the filtered traversal to gate it too.
		saved := ix.o
		ix.o.ExactBelow, ix.o.SwitchCost = 1, 1e-12
		defer func() { ix.o = saved }()
		// About 15 ms a query (the reason for the switch): 200 queries.
		r := recallAt(t, ix, queries[:200], k, SearchOptions{Allow: allow1, AllowCount: count1})
		t.Logf("recall@10 with %d allowed (1%%), graph forced = %.4f (200 queries)", count1, r)
		if r < 0.95 {
			t.Errorf("filtered graph recall@10 = %.4f, want ≥ 0.95", r)
		}
	})
	allow10, count10 := subset(12, 0.10)
	t.Run("allowed 10%", func(t *testing.T) {
		if ix.selective(count10, ix.o.EfSearch) {
			t.Logf("note: the switch scans exactly at %d allowed", count10)
		}
		r := recallAt(t, ix, queries, k, SearchOptions{Allow: allow10, AllowCount: count10})
		t.Logf("recall@10 with %d allowed (10%%) = %.4f", count10, r)
		if r < 0.95 {
			t.Errorf("filtered recall@10 = %.4f, want ≥ 0.95", r)
		}
	})
}
