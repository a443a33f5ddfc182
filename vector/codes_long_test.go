package vector

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/quant"
)

// quantRecall100k builds the float32 index and code-mode indexes of data
// (2-4 bits mse with float32 re-ranking, 4 bits mse and ip without) and
// reports build rate, heap and recall@10 against exact float32 through
// the graph and the exact scan; 4-bit re-ranked is gated at 0.95.
func quantRecall100k(t *testing.T, data, queries [][]float32) {
	const k = 10
	dim := len(data[0])
	truth := floatTruth(data, queries, k)
	type conf struct {
		bits int
		v    quant.Variant
		keep bool
	}
	// CI builds the two gated indexes; the report-only ones (about four
	// more 100k builds per dataset, 13 minutes of a loaded CI run) need
	// CONTEXTD_VECTOR_SWEEP=1.
	confs := []conf{{4, quant.MSE, true}, {0, 0, false}}
	if sweep() {
		confs = append(confs, conf{4, quant.MSE, false}, conf{4, quant.IP, false}, conf{3, quant.MSE, true}, conf{2, quant.MSE, true})
	}
	for _, c := range confs {
		name := "float32"
		o := Options{}
		if c.bits > 0 {
			name = fmt.Sprintf("%v-%dbit-keep=%v", c.v, c.bits, c.keep)
			o = Options{Quantizer: mustQuant(t, dim, c.bits, c.v), KeepFloat: c.keep}
		}
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			h0 := heapInUse()
			t0, c0 := time.Now(), processCPU()
			ix := build(t, data, o)
			el, cpu := time.Since(t0), processCPU()-c0
			runtime.GC()
			h1 := heapInUse()
			m := ix.Memory()
			t.Logf("build %.0f vectors/s (%.0f per CPU second); heap %.1f MB; index %.0f B/vector (vectors %.1f MB, codes %.1f MB, links %.1f MB)",
				float64(len(data))/el.Seconds(), float64(len(data))/cpu.Seconds(), float64(h1-h0)/1e6, m.PerVector(len(data)),
				float64(m.Vectors)/1e6, float64(m.Codes)/1e6, float64(m.Links)/1e6)
			if c.keep {
				// The over-fetch sweep behind DefaultOverfetch.
				saved := ix.o.Overfetch
				for _, f := range []int{2, 4, 8, 16} {
					ix.o.Overfetch = f
					t.Logf("overfetch %2d: recall@10 graph %.4f, exact scan %.4f", f,
						recallVsFloat(t, ix, queries, truth, k, SearchOptions{}),
						recallVsFloat(t, ix, queries, truth, k, SearchOptions{Exact: true}))
				}
				ix.o.Overfetch = saved
			}
			rg := recallVsFloat(t, ix, queries, truth, k, SearchOptions{})
			re := recallVsFloat(t, ix, queries, truth, k, SearchOptions{Exact: true})
			t.Logf("recall@10 vs exact float32 (overfetch %d): graph %.4f, exact scan %.4f", ix.o.Overfetch, rg, re)
			if c.bits == 4 && c.keep && (rg < 0.95 || re < 0.95) {
				t.Errorf("4-bit re-ranked recall@10 graph %.4f / exact %.4f, want ≥ 0.95", rg, re)
			}
			if c.bits == 0 && rg < 0.95 {
				t.Errorf("float32 recall@10 %.4f, want ≥ 0.95", rg)
			}
		})
	}
}

// TestQuantRecall100k: 100k clustered 384-d vectors, 200 held-out
// queries (long tier: about six index builds).
func TestQuantRecall100k(t *testing.T) {
	testtier.Long(t)
	const n = 100_000
	vecs := clustered(1, n+200, 384, 0.6)
	quantRecall100k(t, vecs[:n], vecs[n:])
}

// TestQuantRecallGloVe100k: 100k sentence vectors of the built-in
// embedder (gloveSet), 500 held-out sentences as queries.
func TestQuantRecallGloVe100k(t *testing.T) {
	testtier.Long(t)
	data, queries := gloveSet(t, 100_000, 500)
	quantRecall100k(t, data, queries)
}

// TestQuantEfConstruction (long tier) is the measurement behind the
// engine's efConstruction (internal/search graphOptions): CPU per insert
// and recall@10 against exact float32 of L2 graphs of built-in sentence
// vectors (CONTEXTD_VECTOR_EF_N vectors, default 100k), on float32 at
// efConstruction 128, 96, 64 and 48 (the default graph, which keeps the
// floats) and on 4-bit codes only at 128, 64 and 48, each searched at
// efSearch 96 and 128. Rows are subtests (-run
// 'TestQuantEfConstruction/float32' measures the float32 ones).
func TestQuantEfConstruction(t *testing.T) {
	testtier.Long(t)
	if !sweep() {
		t.Skip("a measurement without a gate: set CONTEXTD_VECTOR_SWEEP=1")
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("CONTEXTD_VECTOR_EF_N")); err == nil && v > 0 {
		n = v
	}
	data, queries := gloveSet(t, n, 500)
	truth := truthBy(data, queries, 10, l2sq)
	dim := len(data[0])
	for _, c := range []struct {
		codes bool
		ef    int
	}{{false, 128}, {false, 96}, {false, 64}, {false, 48}, {true, 128}, {true, 64}, {true, 48}} {
		name := fmt.Sprintf("float32/ef=%d", c.ef)
		if c.codes {
			name = fmt.Sprintf("codes/ef=%d", c.ef)
		}
		t.Run(name, func(t *testing.T) {
			o := Options{Metric: L2, EfConstruction: c.ef}
			if c.codes {
				o.Quantizer = mustQuant(t, dim, 4, quant.MSE)
			}
			c0 := processCPU()
			ix := build(t, data, o)
			cpu := processCPU() - c0
			t.Logf("codes %v efConstruction %d: %.0f cpu-µs/insert, recall@10 graph %.4f (efSearch 128: %.4f), exact scan %.4f", c.codes, c.ef,
				float64(cpu.Microseconds())/float64(n),
				recallVsFloat(t, ix, queries, truth, 10, SearchOptions{}),
				recallVsFloat(t, ix, queries, truth, 10, SearchOptions{Ef: 128}),
				recallVsFloat(t, ix, queries, truth, 10, SearchOptions{Exact: true}))
		})
	}
}

// sweep reports whether the long tier's report-only measurements run
// (CONTEXTD_VECTOR_SWEEP=1): they print the README's figures and gate
// nothing, so CI leaves them out.
func sweep() bool { return os.Getenv("CONTEXTD_VECTOR_SWEEP") == "1" }
