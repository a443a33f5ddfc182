package vector

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/quant"
)

// batchItems makes AddBatch items of vecs under keys 0..n-1.
func batchItems(vecs [][]float32) []BatchItem {
	items := make([]BatchItem, len(vecs))
	for i, v := range vecs {
		items[i] = BatchItem{Key: uint64(i), Vec: v}
	}
	return items
}

// snapshotBytes is the index's snapshot: every vector, key, level and
// neighbour list, and the entry point.
func snapshotBytes(t *testing.T, ix *Index) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := ix.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAddBatchDeterministic: the same items in the same order give the
// same graph byte for byte whatever the number of workers (1, 2, 7) or
// GOMAXPROCS, on float32 and on codes, with keys replaced inside a round
// and across rounds (tombstones, repair).
func TestAddBatchDeterministic(t *testing.T) {
	vecs := clustered(5, 3000, 32, 0.5)
	items := batchItems(vecs)
	// Replace 300 keys with other vectors, some inside the round that
	// first stored them.
	for i := 0; i < 300; i++ {
		items = append(items, BatchItem{Key: uint64(i * 7 % 3000), Vec: vecs[(i*13+1)%3000]})
	}
	cases := map[string]Options{
		"float32": {M: 8, EfConstruction: 48, Metric: L2, KeepPruned: true, Seed: 3},
		"codes":   {M: 8, EfConstruction: 48, Metric: L2, Seed: 3, Quantizer: mustQuant(t, 32, 4, quant.MSE)},
		"cosine":  {M: 8, EfConstruction: 48, Metric: Cosine, Seed: 3},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			var want []byte
			for _, w := range []int{1, 2, 7} {
				ix, err := New(32, o)
				if err != nil {
					t.Fatal(err)
				}
				// In two calls, so a call also starts on a graph.
				if err := ix.addBatch(items[:1700], w); err != nil {
					t.Fatal(err)
				}
				if err := ix.addBatch(items[1700:], w); err != nil {
					t.Fatal(err)
				}
				got := snapshotBytes(t, ix)
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("%d workers built another graph than 1 worker", w)
				}
				ix.Repair()
				checkConsistent(t, ix, 3000)
			}
			prev := runtime.GOMAXPROCS(3)
			defer runtime.GOMAXPROCS(prev)
			ix, err := New(32, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.AddBatch(items[:1700]); err != nil {
				t.Fatal(err)
			}
			if err := ix.AddBatch(items[1700:]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(snapshotBytes(t, ix), want) {
				t.Fatal("AddBatch at GOMAXPROCS 3 built another graph than 1 worker")
			}
		})
	}
}

// TestAddBatchMatchesAddForSmallBatches: below a round's minimum the items
// go in one by one, the graph Add builds.
func TestAddBatchMatchesAddForSmallBatches(t *testing.T) {
	vecs := clustered(6, 1000, 16, 0.5)
	o := Options{M: 8, EfConstruction: 32, Metric: L2, Seed: 9}
	seq := build(t, vecs, o)
	ix := build(t, vecs[:990], o)
	if err := ix.AddBatch(batchItems(vecs)[990:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snapshotBytes(t, ix), snapshotBytes(t, seq)) {
		t.Fatal("a batch of 10 built another graph than Add")
	}
}

// TestAddBatchInvalid: an invalid item anywhere fails the call before
// anything is inserted.
func TestAddBatchInvalid(t *testing.T) {
	vecs := clustered(7, 600, 16, 0.5)
	q := mustQuant(t, 16, 4, quant.MSE)
	ix, err := New(16, Options{Metric: L2, Quantizer: q})
	if err != nil {
		t.Fatal(err)
	}
	code, err := q.Encode(nil, vecs[1])
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]BatchItem{
		"short vector": {Key: 9, Vec: vecs[0][:15]},
		"NaN":          {Key: 9, Vec: append(append([]float32(nil), vecs[0][:15]...), float32(nan()))},
		"short code":   {Key: 9, Code: code[:len(code)-1]},
	} {
		items := append(batchItems(vecs), bad)
		if err := ix.AddBatch(items); err == nil {
			t.Errorf("%s: no error", name)
		} else if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrDimension) {
			t.Errorf("%s: %v wraps neither ErrInvalid nor ErrDimension", name, err)
		}
		if ix.Len() != 0 {
			t.Fatalf("%s: %d keys inserted by a failed batch", name, ix.Len())
		}
	}
	items := batchItems(vecs)
	items = append(items, BatchItem{Key: 1000, Code: code})
	if err := ix.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, ix, 601)
}

func nan() float64 { z := 0.0; return z / z }

// TestAddBatchRecall is the oracle: recall@10 against the exact scan of a
// graph built by AddBatch is within 0.01 of the graph Add builds from the
// same vectors, on float32 with KeepPruned (the engine's default graph)
// and on codes, at a low efSearch where a worse graph shows.
func TestAddBatchRecall(t *testing.T) {
	n := 8000
	if testing.Short() {
		n = 4000
	}
	n = testtier.RaceShare(n) // the race pass watches the parallel phases at a quarter
	vecs := clustered(11, n+300, 64, 1.2)
	data, queries := vecs[:n], vecs[n:]
	cases := map[string]Options{
		"float32 KeepPruned": {M: 16, EfConstruction: 64, EfSearch: 10, Metric: L2, KeepPruned: true},
		"codes":              {M: 16, EfConstruction: 64, EfSearch: 10, Metric: L2, Quantizer: mustQuant(t, 64, 4, quant.MSE)},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			seq := build(t, data, o)
			bat, err := New(64, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := bat.AddBatch(batchItems(data)); err != nil {
				t.Fatal(err)
			}
			us, ub := unreachable(seq), unreachable(bat)
			t.Logf("%s: nodes unreachable on layer 0: Add %d, AddBatch %d", name, us, ub)
			if ub > us+n/1000 {
				t.Errorf("%d nodes unreachable with AddBatch, %d with Add", ub, us)
			}
			rs := recallAt(t, seq, queries, 10, SearchOptions{})
			rb := recallAt(t, bat, queries, 10, SearchOptions{})
			t.Logf("%s, %d vectors: recall@10 Add %.4f, AddBatch %.4f", name, n, rs, rb)
			if rb < rs-0.01 {
				t.Fatalf("recall@10 %.4f with AddBatch, %.4f with Add: more than 0.01 lower", rb, rs)
			}
		})
	}
}

// BenchmarkAddBatch builds one graph per op of n clustered 384-d vectors
// (CONTEXTD_VECTOR_BENCH_N, default 20,000) with the engine's float32
// settings (efConstruction 64, KeepPruned): Add one by one, and AddBatch
// with 1 and 2 workers; it reports recall@10 (efSearch 96) of the graph.
func BenchmarkAddBatch(b *testing.B) {
	n := 20000
	if s := os.Getenv("CONTEXTD_VECTOR_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	vecs := clustered(1, n+200, 384, 0.6)
	data, queries := vecs[:n], vecs[n:]
	o := Options{EfConstruction: 64, KeepPruned: true, Metric: L2}
	items := batchItems(data)
	for _, mode := range []string{"add", "batch-1", "batch-2"} {
		b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
			var ix *Index
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				c0 := processCPU()
				switch mode {
				case "add":
					ix = build(b, data, o)
				default:
					var err error
					if ix, err = New(384, o); err != nil {
						b.Fatal(err)
					}
					if err := ix.addBatch(items, int(mode[len(mode)-1]-'0')); err != nil {
						b.Fatal(err)
					}
				}
				cpu += processCPU() - c0
			}
			b.StopTimer()
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "vectors/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n*b.N), "cpu-µs/insert")
			b.ReportMetric(recallAt(b, ix, queries, 10, SearchOptions{}), "recall@10")
		})
	}
}

// unreachable counts the live nodes a walk of layer 0 from the entry
// point does not reach.
func unreachable(ix *Index) int {
	seen := map[uint32]bool{ix.entry: true}
	stack := []uint32{ix.entry}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range ix.neighbours(x, 0) {
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	return ix.live - len(seen)
}

// TestAddBatchParagraphRecall is the oracle on the engine's data and
// graph: 20,000 Go doc paragraphs in walk order (dense runs of one file,
// the order a rebuild from SQL inserts), L2, efConstruction 64,
// KeepPruned, searched as the engine searches (depth 100) at efSearch 100
// and 300: AddBatch's recall@10 against the exact scan is within 0.01 of
// Add's. Long tier (two builds of 20,000 384-d vectors).
func TestAddBatchParagraphRecall(t *testing.T) {
	testtier.Long(t)
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("CONTEXTD_VECTOR_EF_N")); err == nil && v > 0 {
		n = v
	}
	data, queries := paragraphSet(t, n, 500)
	o := Options{Metric: L2, EfConstruction: 64, KeepPruned: true}
	c0, t0 := processCPU(), time.Now()
	seq := build(t, data, o)
	t.Logf("Add: %.0f cpu-µs/insert, %v", float64((processCPU()-c0).Microseconds())/float64(n), time.Since(t0).Round(time.Millisecond))
	bat, err := New(len(data[0]), o)
	if err != nil {
		t.Fatal(err)
	}
	c0, t0 = processCPU(), time.Now()
	if err := bat.AddBatch(batchItems(data)); err != nil {
		t.Fatal(err)
	}
	t.Logf("AddBatch: %.0f cpu-µs/insert, %v", float64((processCPU()-c0).Microseconds())/float64(n), time.Since(t0).Round(time.Millisecond))
	for _, ef := range []int{100, paragraphEf} {
		rs := recallTies(t, seq, queries, 10, 100, SearchOptions{Ef: ef})
		rb := recallTies(t, bat, queries, 10, 100, SearchOptions{Ef: ef})
		t.Logf("efSearch %d: recall@10 Add %.4f, AddBatch %.4f", ef, rs, rb)
		if rb < rs-0.01 {
			t.Errorf("efSearch %d: recall@10 %.4f with AddBatch, %.4f with Add", ef, rb, rs)
		}
	}
}

// TestAddBatchLinksAsInItemOrder: applying the reverse links grouped by
// the node linked to (in parallel) edits the graph exactly as linking
// every new node in item order, choice and reverse links together, does.
func TestAddBatchLinksAsInItemOrder(t *testing.T) {
	vecs := clustered(8, 2500, 24, 0.5)
	items := batchItems(vecs)
	for i := 0; i < 200; i++ {
		items = append(items, BatchItem{Key: uint64(i * 11 % 2500), Vec: vecs[(i*17+3)%2500]})
	}
	o := Options{M: 6, EfConstruction: 40, Metric: L2, KeepPruned: true, Seed: 4}
	got, err := New(24, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.addBatch(items, 3); err != nil {
		t.Fatal(err)
	}
	want, err := New(24, o)
	if err != nil {
		t.Fatal(err)
	}
	for rest := items; len(rest) > 0; {
		n := want.roundSize(len(rest))
		inItemOrder(want, rest[:n])
		rest = rest[n:]
	}
	if !bytes.Equal(snapshotBytes(t, got), snapshotBytes(t, want)) {
		t.Fatal("AddBatch built another graph than linking in item order")
	}
}

// inItemOrder is addRound with every node linked in turn: its choice,
// its reverse links, the entry point.
func inItemOrder(ix *Index, items []BatchItem) {
	if len(items) == 1 || ix.entry == noNode {
		for _, it := range items {
			ix.putLocked(it.Key, it.Vec, nil)
		}
		return
	}
	nodes := make([]batchNode, len(items))
	for i, it := range items {
		if old, ok := ix.byKey.get(ix.keys, it.Key); ok {
			ix.tombstone(old)
		}
		nodes[i].id, nodes[i].qv = ix.alloc(it.Key, it.Vec, nil)
		ix.byKey.put(ix.keys, nodes[i].id)
		ix.live++
	}
	s := ix.getScratch()
	for i := range nodes {
		ix.searchNode(s, nodes, i)
	}
	for i := range nodes {
		nd := &nodes[i]
		level := int(ix.levels[nd.id])
		nd.top = min(level, ix.maxLevel)
		ix.chooseNeighbours(nodes, i)
		for l := nd.top; l >= 0; l-- {
			for _, c := range nd.chosen[l] {
				ix.link(c.id, nd.id, c.d, l)
			}
		}
		if level > ix.maxLevel {
			ix.entry, ix.maxLevel = nd.id, level
		}
	}
	ix.maybeRepair()
}
