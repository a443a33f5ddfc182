package vector

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/quant"
)

// bruteForce is an independent reference: distances in float64, full sort.
func bruteForce(m Metric, vecs map[uint64][]float32, q []float32, k int) []uint64 {
	type kd struct {
		k uint64
		d float64
	}
	qn := append([]float32(nil), q...)
	if m == Cosine {
		normalize(qn)
	}
	var all []kd
	for key, v := range vecs {
		vn := append([]float32(nil), v...)
		var d float64
		switch m {
		case Cosine:
			normalize(vn)
			d = 1 - naiveDot(qn, vn)
		case Dot:
			d = -naiveDot(qn, vn)
		case L2:
			d = math.Sqrt(naiveL2sq(qn, vn))
		}
		all = append(all, kd{key, d})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d < all[j].d
		}
		return all[i].k < all[j].k
	})
	var out []uint64
	for i := 0; i < k && i < len(all); i++ {
		out = append(out, all[i].k)
	}
	return out
}

func TestExactMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	vecs := clustered(3, 300, 24, 0.8)
	for _, m := range []Metric{Cosine, Dot, L2} {
		t.Run(m.String(), func(t *testing.T) {
			ix, err := New(24, Options{Metric: m})
			if err != nil {
				t.Fatal(err)
			}
			ref := map[uint64][]float32{}
			for i, v := range vecs {
				v = append([]float32(nil), v...)
				v[0] += float32(i%3) * 0.5 // not unit length, so the metrics differ
				ref[uint64(i)*7] = v
				if err := ix.Add(uint64(i)*7, v); err != nil {
					t.Fatal(err)
				}
			}
			for qi, q := range clustered(4, 20, 24, 0.8) {
				want := bruteForce(m, ref, q, 10)
				got, err := ix.Search(ctx, q, 10, SearchOptions{Exact: true})
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i].Key != want[i] {
						t.Fatalf("query %d rank %d: got key %d, want %d", qi, i, got[i].Key, want[i])
					}
				}
				// The graph finds the same top 10 on this small set.
				g, err := ix.Search(ctx, q, 10, SearchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(g) != 10 {
					t.Fatalf("graph returned %d hits", len(g))
				}
				for i := 1; i < len(g); i++ {
					if g[i].Distance < g[i-1].Distance {
						t.Fatalf("hits not sorted: %v", g)
					}
				}
			}
		})
	}
}

func TestInvalidInput(t *testing.T) {
	ctx := context.Background()
	if _, err := New(0, Options{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("New(0) = %v", err)
	}
	if _, err := New(4, Options{Metric: 9}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad metric = %v", err)
	}
	ix, _ := New(4, Options{})
	if err := ix.Add(1, []float32{1, 2, 3}); !errors.Is(err, ErrDimension) {
		t.Fatalf("short vector = %v", err)
	}
	if err := ix.Add(1, []float32{1, 2, float32(math.NaN()), 0}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NaN = %v", err)
	}
	if ix.Len() != 0 {
		t.Fatalf("rejected vectors were stored")
	}
	if _, err := ix.Search(ctx, []float32{1, 2, 3, 4}, 0, SearchOptions{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("k=0 = %v", err)
	}
	if _, err := ix.Search(ctx, []float32{1, 2}, 3, SearchOptions{}); !errors.Is(err, ErrDimension) {
		t.Fatalf("short query = %v", err)
	}
	if hits, err := ix.Search(ctx, []float32{1, 2, 3, 4}, 3, SearchOptions{}); err != nil || len(hits) != 0 {
		t.Fatalf("empty index = %v, %v", hits, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, []float32{1, 2, 3, 4}, 3, SearchOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled = %v", err)
	}
}

// TestRecallClustered checks recall on 5,000 clustered 384-d vectors in
// the quick tier and on 20,000 in the long tier (TestRecall100k adds
// 100,000 there): building the 20,000-vector graph took 8 s of CPU, the
// vector package's longest quick test. Under -race it builds a quarter
// of the quick size (testtier.RaceShare): the build is sequential, so the
// detector has nothing to watch in it, and at 5,000 it took 149 s of the
// race pass (CPU-bound, shared machine).
func TestRecallClustered(t *testing.T) {
	n := 20000
	if testing.Short() || !testtier.On(t) {
		n = 5000
	}
	n = testtier.RaceShare(n)
	vecs := clustered(1, n+200, 384, 0.6)
	ix := build(t, vecs[:n], Options{})
	if r := recallAt(t, ix, vecs[n:], 10, SearchOptions{}); r < 0.95 {
		t.Fatalf("recall@10 = %.4f at %d vectors, want ≥ 0.95", r, n)
	}
	t.Run("allowed 1%", func(t *testing.T) {
		allow := func(k uint64) bool { return k%100 == 0 }
		if r := recallAt(t, ix, vecs[n:], 10, SearchOptions{Allow: allow}); r < 0.99 {
			t.Fatalf("filtered recall@10 = %.4f, want ≥ 0.99", r)
		}
	})
	t.Run("allowed 10% by graph", func(t *testing.T) {
		// Force the filtered traversal (the cost switch would scan).
		saved := ix.o
		ix.o.ExactBelow, ix.o.SwitchCost = 1, 1e-12
		defer func() { ix.o = saved }()
		allow := func(k uint64) bool { return k%10 == 3 }
		r := recallAt(t, ix, vecs[n:], 10, SearchOptions{Allow: allow})
		if r < 0.95 {
			t.Fatalf("filtered recall@10 = %.4f, want ≥ 0.95", r)
		}
		// Hidden keys never take a slot.
		hits, err := ix.Search(context.Background(), vecs[n], 10, SearchOptions{Allow: allow})
		if err != nil || len(hits) != 10 {
			t.Fatalf("got %d hits, %v", len(hits), err)
		}
		for _, h := range hits {
			if !allow(h.Key) {
				t.Fatalf("hit %d is not allowed", h.Key)
			}
		}
	})
}

// TestRecall100k is the acceptance gate on 100k clustered 384-d vectors.
// It takes about a minute on two cores, so it is in the long tier
// (CONTEXTD_LONG=1, internal/testtier; BenchmarkCompare measures the same
// set).
func TestRecall100k(t *testing.T) {
	testtier.Long(t)
	const n = 100000
	vecs := clustered(1, n+200, 384, 0.6)
	ix := build(t, vecs[:n], Options{})
	r := recallAt(t, ix, vecs[n:], 10, SearchOptions{})
	t.Logf("recall@10 at 100k = %.4f", r)
	if r < 0.95 {
		t.Fatalf("recall@10 = %.4f, want ≥ 0.95", r)
	}
	rf := recallAt(t, ix, vecs[n:], 10, SearchOptions{Allow: func(k uint64) bool { return k%100 == 0 }})
	t.Logf("recall@10 with 1%% allowed = %.4f", rf)
	if rf < 0.99 {
		t.Fatalf("filtered recall@10 = %.4f, want ≥ 0.99", rf)
	}
}

// checkConsistent verifies the graph invariants: every neighbour exists,
// tombstones excepted nothing links to a freed slot, and every live node is
// reachable on layer 0 from the entry point.
func checkConsistent(t *testing.T, ix *Index, wantLive int) {
	t.Helper()
	if err := ix.checkGraph(); err != nil {
		t.Fatalf("graph: %v", err)
	}
	if ix.live != wantLive || ix.byKey.len() != wantLive {
		t.Fatalf("live = %d, byKey = %d, want %d", ix.live, ix.byKey.len(), wantLive)
	}
	if ix.tombs != 0 {
		t.Fatalf("%d tombstones after repair", ix.tombs)
	}
	if wantLive == 0 {
		return
	}
	seen := map[uint32]bool{ix.entry: true}
	stack := []uint32{ix.entry}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range ix.neighbours(x, 0) {
			if ix.dead.has(y) {
				t.Fatalf("live node %d links to deleted node %d after repair", x, y)
			}
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	for _, s := range ix.byKey.slots {
		if id := s - 1; s != 0 && !seen[id] {
			t.Fatalf("node %d (key %d) unreachable from entry %d", id, ix.keys[id], ix.entry)
		}
	}
}

// TestPropertyRandomOps: random inserts, updates and deletes against a
// map, then repair, the graph's invariants and recall against brute force.
// Under -race a quarter of the operations over a quarter of the keys
// (testtier.RaceShare; 142 s of the race pass at full size): the
// operations are sequential, and each seed still deletes, repairs and
// searches between repairs.
func TestPropertyRandomOps(t *testing.T) {
	ctx := context.Background()
	ops, keys := testtier.RaceShare(4000), testtier.RaceShare(1500)
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run("seed "+itoa(int(seed)), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			pool := clustered(seed, 3000, 32, 0.7)
			o := Options{M: 8, EfConstruction: 64, Seed: seed}
			gate := 0.95
			switch seed {
			case 4: // on 4-bit codes, re-ranked by float32
				o.Quantizer, o.KeepFloat = mustQuant(t, 32, 4, quant.MSE), true
			case 5: // on codes only: repair compares reconstructions
				o.Quantizer = mustQuant(t, 32, 4, quant.MSE)
				gate = 0.8 // codes alone rank approximately (measured 0.856)
			case 6: // the engine's float32 graph: L2, pruned candidates kept
				o.Metric, o.KeepPruned = L2, true
			}
			ix, err := New(32, o)
			if err != nil {
				t.Fatal(err)
			}
			ref := map[uint64][]float32{}
			for op := range ops {
				key := uint64(r.IntN(keys))
				switch p := r.IntN(10); {
				case p < 6: // insert or update
					v := pool[r.IntN(len(pool))]
					if err := ix.Add(key, v); err != nil {
						t.Fatal(err)
					}
					ref[key] = v
				default:
					_, had := ref[key]
					if got := ix.Delete(key); got != had {
						t.Fatalf("Delete(%d) = %v, want %v", key, got, had)
					}
					delete(ref, key)
				}
				if op%500 == 499 {
					// Searches between repairs never return deleted keys.
					hits, err := ix.Search(ctx, pool[op%len(pool)], 10, SearchOptions{})
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range hits {
						if _, ok := ref[h.Key]; !ok {
							t.Fatalf("search returned deleted key %d", h.Key)
						}
					}
				}
			}
			ix.Repair()
			checkConsistent(t, ix, len(ref))
			found, total := 0, 0
			for _, q := range clustered(seed+100, 100, 32, 0.7) {
				want := bruteForce(Cosine, ref, q, 10)
				got, err := ix.Search(ctx, q, 10, SearchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				in := map[uint64]bool{}
				for _, k := range want {
					in[k] = true
				}
				for _, h := range got {
					if in[h.Key] {
						found++
					}
				}
				total += len(want)
			}
			rec := float64(found) / float64(total)
			t.Logf("recall@10 after random ops = %.4f", rec)
			if rec < gate {
				t.Fatalf("recall@10 after random ops = %.4f, want ≥ %.2f", rec, gate)
			}
		})
	}
}

func TestDeleteAll(t *testing.T) {
	ix, _ := New(8, Options{})
	vecs := clustered(5, 50, 8, 0.5)
	for i, v := range vecs {
		_ = ix.Add(uint64(i), v)
	}
	for i := range vecs {
		if !ix.Delete(uint64(i)) {
			t.Fatalf("Delete(%d) = false", i)
		}
	}
	ix.Repair()
	checkConsistent(t, ix, 0)
	hits, err := ix.Search(context.Background(), vecs[0], 5, SearchOptions{})
	if err != nil || len(hits) != 0 {
		t.Fatalf("search on emptied index = %v, %v", hits, err)
	}
	// Slots are reused.
	for i, v := range vecs[:10] {
		_ = ix.Add(uint64(100+i), v)
	}
	if len(ix.keys) != 50 || ix.Len() != 10 {
		t.Fatalf("slots = %d, live = %d; want reuse of 50 slots, 10 live", len(ix.keys), ix.Len())
	}
	hits, _ = ix.Search(context.Background(), vecs[3], 1, SearchOptions{})
	if len(hits) != 1 || hits[0].Key != 103 {
		t.Fatalf("nearest to a stored vector = %v, want key 103", hits)
	}
}

func TestConcurrentReadersOneWriter(t *testing.T) {
	t.Run("float32", func(t *testing.T) { concurrentReadersOneWriter(t, Options{}) })
	// Code mode shares the quantizer (pooled scratch) and keeps per-search
	// query tables; the writer's decode slab is under the write lock.
	t.Run("codes", func(t *testing.T) { concurrentReadersOneWriter(t, Options{Quantizer: mustQuant(t, 32, 3, quant.MSE)}) })
	t.Run("codes+float", func(t *testing.T) {
		concurrentReadersOneWriter(t, Options{Quantizer: mustQuant(t, 32, 4, quant.IP), KeepFloat: true})
	})
}

// concurrentReadersOneWriter builds an index, then adds and deletes
// while four readers search. Under -race the graph is a quarter of the
// size (testtier.RaceShare; 153 s of the race pass at full size, most of
// it the sequential build): the readers still make all their searches
// while the writer changes the graph.
func concurrentReadersOneWriter(t *testing.T, o Options) {
	base, added := testtier.RaceShare(1000), testtier.RaceShare(2000)
	vecs := clustered(6, base+added, 32, 0.6)
	ix := build(t, vecs[:base], o)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				hits, err := ix.Search(context.Background(), vecs[(g*300+i)%len(vecs)], 5, SearchOptions{})
				if err != nil || len(hits) == 0 {
					t.Errorf("search: %v, %d hits", err, len(hits))
					return
				}
			}
		}(g)
	}
	for i := base; i < base+added; i++ {
		if err := ix.Add(uint64(i), vecs[i]); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			ix.Delete(uint64(i - base/2))
		}
	}
	wg.Wait()
}

func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	vecs := clustered(7, 600, 16, 0.6)
	ix := build(t, vecs[:500], Options{Metric: L2, M: 6, Seed: 3})
	for i := 0; i < 40; i++ {
		ix.Delete(uint64(i * 3)) // leaves tombstones (below the repair fraction)
	}
	ix.SetWatermark(12345)
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Watermark() != 12345 || got.Len() != ix.Len() || got.Dim() != 16 {
		t.Fatalf("restored watermark %d, len %d, dim %d", got.Watermark(), got.Len(), got.Dim())
	}
	for _, q := range vecs[500:520] {
		a, _ := ix.Search(ctx, q, 10, SearchOptions{})
		b, _ := got.Search(ctx, q, 10, SearchOptions{})
		if len(a) != len(b) {
			t.Fatalf("restored search differs: %v vs %v", a, b)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("restored search differs at %d: %v vs %v", i, a[i], b[i])
			}
		}
	}
	// The restored index keeps working: adds, deletes, repair.
	for i, v := range vecs[500:] {
		if err := got.Add(uint64(1000+i), v); err != nil {
			t.Fatal(err)
		}
	}
	got.Repair()
	checkConsistent(t, got, 560)

	t.Run("damage is detected", func(t *testing.T) {
		data := buf.Bytes()
		for _, at := range []int{0, 9, 30, 70, len(data) / 2, len(data) - 1} {
			bad := append([]byte(nil), data...)
			bad[at] ^= 0x41
			if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("flipped byte %d: err = %v, want ErrCorrupt", at, err)
			}
		}
		for _, cut := range []int{0, 5, 60, len(data) / 3, len(data) - 1} {
			if _, err := Read(bytes.NewReader(data[:cut])); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated at %d: err = %v, want ErrCorrupt", cut, err)
			}
		}
	})
}

func FuzzRead(f *testing.F) {
	ix := build(f, clustered(8, 40, 4, 0.5), Options{M: 2})
	ix.Delete(3)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	empty, _ := New(3, Options{})
	var eb bytes.Buffer
	_, _ = empty.WriteTo(&eb)
	f.Add(eb.Bytes())
	f.Add([]byte("CXVHNSW1"))
	// Version 2 with codes, with and without the float32 vectors.
	// Version 3 adds the 8-bit storage.
	for _, o := range []Options{{M: 2, Quantizer: mustQuant(f, 4, 3, quant.MSE)},
		{M: 2, Quantizer: mustQuant(f, 4, 2, quant.IP), KeepFloat: true}, {M: 2, Int8: true, Metric: L2}} {
		var cb bytes.Buffer
		_, _ = build(f, clustered(9, 30, 4, 0.5), o).WriteTo(&cb)
		f.Add(cb.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		// Whatever loads must be safe to search and to change.
		q := make([]float32, got.Dim())
		q[0] = 1
		if _, err := got.Search(context.Background(), q, 3, SearchOptions{}); err != nil {
			t.Fatal(err)
		}
		_ = got.Add(1<<40, q)
		got.Repair()
	})
}

func TestSwitchRule(t *testing.T) {
	ix, _ := New(4, Options{})
	ix.live = 100000
	tests := []struct {
		allowed, ef int
		exact       bool
	}{
		{1, 96, true},
		{1000, 96, true}, // 1% of 100k
		{7800, 96, true},
		{7900, 96, false},
		{10000, 96, false},
		{100000, 96, false},
		{15000, 400, true}, // a wider beam costs more, so the scan wins longer
		{17000, 400, false},
	}
	for _, tc := range tests {
		if got := ix.selective(tc.allowed, tc.ef); got != tc.exact {
			t.Fatalf("selective(%d, %d) = %v, want %v", tc.allowed, tc.ef, got, tc.exact)
		}
	}
	// The estimate samples the graph.
	vecs := clustered(9, 5000, 8, 0.5)
	ix2 := build(t, vecs, Options{})
	est := ix2.estimateAllowed(func(k uint64) bool { return k%4 == 0 })
	if est < 1000 || est > 1500 {
		t.Fatalf("estimate of a 25%% set of 5000 = %d", est)
	}
}

// TestSetEfConstruction: a snapshot restores the value its graph was built
// with; SetEfConstruction replaces it for the inserts that follow (and the
// next snapshot records it), 0 restores the default, and the graph stays
// consistent across the change.
func TestSetEfConstruction(t *testing.T) {
	vecs := clustered(11, 900, 16, 0.6)
	reread := func(ix *Index) *Index {
		var buf bytes.Buffer
		if _, err := ix.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := reread(build(t, vecs[:400], Options{Metric: L2, EfConstruction: 200, Seed: 5}))
	if got.o.EfConstruction != 200 {
		t.Fatalf("restored efConstruction %d, want 200", got.o.EfConstruction)
	}
	got.SetEfConstruction(24)
	for i, v := range vecs[400:] {
		if err := got.Add(uint64(400+i), v); err != nil {
			t.Fatal(err)
		}
	}
	checkConsistent(t, got, 900)
	again := reread(got)
	if again.o.EfConstruction != 24 {
		t.Fatalf("efConstruction after the second snapshot %d, want 24", again.o.EfConstruction)
	}
	again.SetEfConstruction(0)
	if again.o.EfConstruction != DefaultEfConstruction {
		t.Fatalf("SetEfConstruction(0) left %d, want %d", again.o.EfConstruction, DefaultEfConstruction)
	}
}
