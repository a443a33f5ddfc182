package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/vector"
)

// setThresholds lowers graphFrom and exactEntries for one test, so a few
// hundred entries exercise scope graphs, promotions and demotions.
func setThresholds(t *testing.T, from, exact int) {
	t.Helper()
	oldFrom, oldExact, oldGroup := graphFrom, exactEntries, graphGroup
	graphFrom, exactEntries, graphGroup = from, exact, max(1, from/4)
	t.Cleanup(func() { graphFrom, exactEntries, graphGroup = oldFrom, oldExact, oldGroup })
}

// oracleHits is the exact answer for allowed: every allowed chunk
// measured by one exact scan of a single index holding every chunk (the
// same kernels, so the same float32 distances), best chunk per entry,
// distance then id.
func oracleHits(t *testing.T, vi *vecIndex, q []float32, allowed *roaring.Bitmap, depth int) []VectorHit {
	t.Helper()
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	ref, err := vector.New(vi.p.dim, vi.p.vo)
	if err != nil {
		t.Fatal(err)
	}
	var keys []uint64
	for it := allowed.Iterator(); it.HasNext(); {
		keys = append(keys, vi.cm.keys(it.Next())...)
	}
	if len(keys) == 0 {
		return []VectorHit{}
	}
	for _, ix := range append([]*vector.Index{vi.p.pool}, graphsOf(vi.p)...) {
		items := ix.Items(keys)
		for i := range items {
			items[i].Bytes = nil // an 8-bit graph's chunks as their float32 values
		}
		if err := ref.AddBatch(items); err != nil {
			t.Fatal(err)
		}
	}
	if ref.Len() != len(keys) {
		t.Fatalf("%d of %d allowed chunks found in the indexes", ref.Len(), len(keys))
	}
	hits, err := ref.Search(context.Background(), q, len(keys), vector.SearchOptions{Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	best := map[uint32]VectorHit{}
	for _, h := range hits {
		ord, r, _ := vi.cm.ref(h.Key)
		c := VectorHit{Distance: float64(h.Distance), Chunk: r.index, Start: r.start, End: r.end}
		if b, ok := best[ord]; ok && (b.Distance < c.Distance || b.Distance == c.Distance && b.Start <= c.Start) {
			continue
		}
		best[ord] = c
	}
	var out []VectorHit
	for ord, h := range best {
		h.ID, _ = vi.cat.ID(ord)
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b VectorHit) int {
		if a.Distance != b.Distance {
			if a.Distance < b.Distance {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(depth, len(out))]
}

func graphsOf(p *partition) []*vector.Index {
	var gs []*vector.Index
	for _, s := range p.graphs {
		gs = append(gs, s.g)
	}
	return gs
}

// checkPartition checks the partition's bookkeeping against the catalog
// and the chunk map: every entry with chunks in the scope of its access
// fields, each chunk in its scope's index and nowhere else, the graphs
// exactly the scopes that have one.
func checkPartition(t *testing.T, vi *vecIndex) {
	t.Helper()
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	p := vi.p
	total := 0
	vi.cat.Scopes(func(ord uint32, key string) {
		keys := vi.cm.keys(ord)
		s := p.scopeOf(ord)
		if len(keys) == 0 {
			if s != nil {
				t.Fatalf("ordinal %d has no chunks but scope %q", ord, s.key)
			}
			return
		}
		if s == nil || s.key != key || !s.ords.Contains(ord) || p.scopes[key] != s {
			t.Fatalf("ordinal %d not in its scope %q", ord, key)
		}
		if p.inGraphs.Contains(ord) != s.gords.Contains(ord) || s.g == nil && !s.gords.IsEmpty() {
			t.Fatalf("ordinal %d: inGraphs disagrees with its scope", ord)
		}
		for _, k := range keys {
			for _, ix := range append([]*vector.Index{p.pool}, graphsOf(p)...) {
				if ix.Contains(k) != (ix == p.index(s, ord)) {
					t.Fatalf("chunk %d of scope %q: in the wrong index", k, key)
				}
			}
		}
		total += len(keys)
	})
	if total != p.len() {
		t.Fatalf("%d chunks mapped, %d indexed", total, p.len())
	}
	for _, s := range p.scopes {
		if s.chunks == 0 || s.ords.IsEmpty() {
			t.Fatalf("empty scope %q kept", s.key)
		}
		if s.g != nil && !slices.Contains(p.graphs, s) || s.g == nil && slices.Contains(p.graphs, s) {
			t.Fatalf("scope %q: graph list disagrees", s.key)
		}
		if s.g != nil && (s.g.Len() != s.gchunks || s.chunks-s.gchunks >= graphGroup) {
			t.Fatalf("scope %q: graph holds %d of gchunks %d, %d chunks wait in the pool (group %d)", s.key, s.g.Len(), s.gchunks, s.chunks-s.gchunks, graphGroup)
		}
	}
}

// TestVectorsPartitionOracle: the partitioned search (the pool scanned by
// key, scope graphs, promotions and demotions as scopes grow and shrink
// under churn and re-grants) answers every caller and filter exactly as
// one exact scan of the caller's allowed chunks while every scope is
// measured exactly; with graph walks (exactEntries 2) its recall@10
// against that scan stays ≥ 0.95; and a snapshot with scope graphs loads
// intact and answers the same.
func TestVectorsPartitionOracle(t *testing.T) {
	setThresholds(t, 12, 1<<30)
	w := newSnapWorld(t, 5)
	for range 400 {
		w.add()
	}
	w.churn(300)
	ft, vs, closeAll, _ := w.open(true)
	checkPartition(t, vs.ix)
	if len(vs.ix.p.graphs) < 3 || vs.ix.p.pool.Len() == 0 {
		t.Fatalf("%d scope graphs, %d chunks in the pool: the world exercises too little", len(vs.ix.p.graphs), vs.ix.p.pool.Len())
	}
	ctx := context.Background()
	compare := func(exact bool) (found, want int) {
		q := rand.New(rand.NewPCG(7, 7))
		for i := range 60 {
			acc := persist.Access{Principal: snapUsers[i%len(snapUsers)]}
			if i%3 == 0 {
				acc.Groups = []string{"birders"}
			}
			var f persist.Filter
			if i%4 == 1 {
				f.ThreadID = snapThreads[q.IntN(len(snapThreads))]
			}
			v := []float32{float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64())}
			depth := []int{1, 10, 100}[i%3]
			got, _, err := vs.Rank(ctx, acc, VectorQuery{Filter: f, Vector: v, Depth: depth})
			if err != nil {
				t.Fatal(err)
			}
			wantHits := oracleHits(t, vs.ix, v, vs.ix.allowedSet(acc, f), depth)
			if exact {
				if !slices.Equal(got, wantHits) {
					t.Fatalf("query %d (%+v, %+v): got %v, want %v", i, acc, f, got, wantHits)
				}
				continue
			}
			top := wantHits[:min(10, len(wantHits))]
			for _, h := range got[:min(10, len(got))] {
				if slices.Contains(top, h) {
					found++
				}
			}
			want += len(top)
		}
		return found, want
	}
	compare(true)
	exactEntries = 2
	if found, want := compare(false); float64(found) < 0.95*float64(want) {
		t.Fatalf("graph walks: recall@10 %d/%d", found, want)
	}
	exactEntries = 1 << 30
	w.churn(200) // demotions and promotions through the follower
	checkPartition(t, vs.ix)
	compare(true)
	before := w.answers(ft, vs)
	closeAll()

	ft, vs, closeAll, progress := w.open(true)
	defer closeAll()
	if progress != "" {
		t.Fatalf("intact snapshot with %d scope graphs: progress %q", len(vs.ix.p.graphs), progress)
	}
	checkPartition(t, vs.ix)
	if after := w.answers(ft, vs); !slices.Equal(after, before) {
		t.Fatal("answers differ after loading the snapshot")
	}
}

// TestVectorsScopeIndependence: alice's private writes and deletes (one
// unrelated entry, 100 near-duplicates of bob's vectors, 2,000 more of
// both kinds, then all deleted) leave every field of bob's rankings
// byte-identical, for bob alone (his private scope, a graph walked: more
// entries than exactEntries) and with his group (a second scope shared
// with a group, and the public one), filtered or not.
func TestVectorsScopeIndependence(t *testing.T) {
	const scopeDim = 32
	setThresholds(t, 64, 50)
	ctx := context.Background()
	dir := t.TempDir()
	st := testStore(t, dir)
	feed := follow.NewFeed(st)
	defer feed.Close()
	vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: scopeDim, Progress: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	// The narrowest beam (ef = k): walks as approximate as they get.
	vs.ix.p.vo.EfSearch = 1
	r := rand.New(rand.NewPCG(3, 3))
	// Clustered vectors and queries between clusters, where a walk is
	// least sure of its way: with every entry in one scope (ScopeOf
	// returning one key, so one graph as before the partition) alice's
	// first entry already changes bob's results.
	centers := make([][]float32, 24)
	for i := range centers {
		centers[i] = make([]float32, scopeDim)
		for j := range centers[i] {
			centers[i][j] = float32(r.NormFloat64())
		}
	}
	vec := func() []float32 {
		c := centers[r.IntN(len(centers))]
		v := make([]float32, scopeDim)
		for i := range v {
			v[i] = c[i] + float32(r.NormFloat64()*0.15)
		}
		return v
	}
	n := 0
	var bobVecs [][]float32
	for range 600 {
		n++
		v := vec()
		bobVecs = append(bobVecs, v)
		put(t, st, n, "bob", "b", v)
	}
	eng := persist.Grant{PrincipalType: "group", PrincipalID: "eng", Permission: "read"}
	for range 150 {
		n++
		put(t, st, n, "carol", "c", vec(), eng)
	}
	queries := make([][]float32, 80)
	for i := range queries {
		a, b := centers[r.IntN(len(centers))], centers[r.IntN(len(centers))]
		queries[i] = make([]float32, scopeDim)
		for j := range queries[i] {
			queries[i][j] = (a[j] + b[j]) / 2
		}
	}
	sees := func() string {
		var b strings.Builder
		for i, q := range queries {
			acc := persist.Access{Principal: "bob"}
			if i%2 == 1 {
				acc.Groups = []string{"eng"}
			}
			var f persist.Filter
			if i%5 == 4 {
				s := t0.Add(300 * 1e9)
				f.Start = &s
			}
			hits, _, err := vs.Rank(ctx, acc, VectorQuery{Filter: f, Vector: q, Depth: 50})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%d %v\n", i, hits)
		}
		return b.String()
	}
	before := sees()
	if len(vs.ix.p.graphs) != 2 {
		t.Fatalf("%d scope graphs, want bob's and the group's", len(vs.ix.p.graphs))
	}
	// A budget alice's scope passes and bob's and the group's do not: her
	// graph turning 8-bit changes nothing bob sees.
	vs.ix.emu.Lock()
	vs.ix.p.int8From = 1000
	vs.ix.emu.Unlock()
	var hidden []string
	check := func(what string) {
		t.Helper()
		if after := sees(); after != before {
			t.Fatalf("%s changed bob's results", what)
		}
	}
	hide := func(v []float32) {
		n++
		hidden = append(hidden, put(t, st, n, "alice", "a", v))
	}
	hide(vec())
	check("alice's one unrelated private entry")
	near := func() []float32 {
		v := slices.Clone(bobVecs[r.IntN(len(bobVecs))])
		v[r.IntN(len(v))] += float32(r.NormFloat64() * 0.01)
		return v
	}
	for range 100 {
		hide(near())
	}
	check("alice's 100 private near-duplicates")
	for i := range 2000 {
		switch i % 3 {
		case 0:
			hide(vec())
		case 1:
			hide(slices.Clone(bobVecs[r.IntN(len(bobVecs))])) // exact duplicates
		default:
			hide(near())
		}
	}
	check("alice's 2,000 more private entries")
	if len(vs.ix.p.graphs) != 3 {
		t.Fatalf("%d scope graphs, want alice's too", len(vs.ix.p.graphs))
	}
	if o8, _ := vs.ix.p.graph8(); !vs.ix.p.scopes[catalog.ScopeOf(&catalog.Entry{Owner: "alice"})].g.SameStorage(o8) {
		t.Fatal("alice's graph of 2,101 chunks is not 8-bit past a budget of 1,000")
	}
	for len(hidden) > 0 {
		k := min(100, len(hidden))
		del(t, st, hidden[:k]...)
		hidden = hidden[k:]
	}
	check("alice deleting all her entries")
	checkPartition(t, vs.ix)
}

// TestVectorsEarlierSnapshotRebuilt: a directory holding the one-graph
// snapshot of the earlier format (hnsw.snap) and its state snapshot is
// rebuilt from SQL, saying why; the next snapshot replaces the old file
// and loads intact.
func TestVectorsEarlierSnapshotRebuilt(t *testing.T) {
	w := newSnapWorld(t, 9)
	for range 60 {
		w.add()
	}
	ft, vs, closeAll, _ := w.open(true)
	want := w.answers(ft, vs)
	closeAll()
	vdir := filepath.Join(w.dir, "ctx.db.vectors")
	// The earlier format: one graph of every chunk, at the state's watermark.
	st, err := decodeState(must(os.ReadFile(filepath.Join(vdir, vectorStateFile))))
	if err != nil {
		t.Fatal(err)
	}
	vo := vector.Options{Metric: vector.L2} // the engine's storage (graphOptions)
	g, err := vector.New(4, vo)
	if err != nil {
		t.Fatal(err)
	}
	lg, why := (&vecIndex{dir: vdir}).loadSnapshot(4, vo, 1)
	if lg == nil {
		t.Fatal(why)
	}
	for _, ix := range append([]*vector.Index{lg.pool}, values(lg.graphs)...) {
		if err := g.AddBatch(ix.Items(ix.Keys())); err != nil {
			t.Fatal(err)
		}
	}
	g.SetWatermark(uint64(st.mark.Seq))
	var old bytes.Buffer
	if _, err := g.WriteTo(&old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, oldVectorSnapshotFile), old.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(vdir, vectorSnapshotFile)); err != nil {
		t.Fatal(err)
	}

	ft, vs, closeAll, progress := w.open(true)
	if !strings.Contains(progress, "an earlier format") || !strings.Contains(progress, "chunk vectors added") {
		t.Fatalf("earlier format: progress %q", progress)
	}
	if got := w.answers(ft, vs); !slices.Equal(got, want) {
		t.Fatal("answers differ after the rebuild")
	}
	closeAll()
	if _, err := os.Stat(filepath.Join(vdir, oldVectorSnapshotFile)); !os.IsNotExist(err) {
		t.Fatalf("the earlier snapshot is still there: %v", err)
	}
	if p := w.reopen("after the rebuild"); p != "" {
		t.Fatalf("the new snapshot: progress %q", p)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestVectorsGroupingIndependence: a scope's graph, and so its caller's
// results, are the same whether its entries reached the index in one
// change-log batch or in many small ones interleaved with another
// principal's private writes (settle cuts the groups from the scope's own
// entries); and a restart from the snapshot keeps it.
func TestVectorsGroupingIndependence(t *testing.T) {
	const dim = 16
	setThresholds(t, 64, 20)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 8))
	centers := make([][]float32, 12)
	for i := range centers {
		centers[i] = make([]float32, dim)
		for j := range centers[i] {
			centers[i][j] = float32(r.NormFloat64())
		}
	}
	vec := func(r *rand.Rand) []float32 {
		c := centers[r.IntN(len(centers))]
		v := make([]float32, dim)
		for i := range v {
			v[i] = c[i] + float32(r.NormFloat64()*0.2)
		}
		return v
	}
	bob := make([][]float32, 500)
	for i := range bob {
		bob[i] = vec(r)
	}
	queries := make([][]float32, 60)
	for i := range queries {
		queries[i] = vec(r)
	}
	world := func(interleaved bool) (string, string) {
		dir := t.TempDir()
		st := testStore(t, dir)
		feed := follow.NewFeed(st)
		defer feed.Close()
		open := func() *Vectors {
			vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: dim, Dir: filepath.Join(dir, "vectors"), Progress: &bytes.Buffer{}})
			if err != nil {
				t.Fatal(err)
			}
			// Sparse graphs and the narrowest beam: walks as approximate,
			// and as dependent on the graph's shape, as they get.
			p := vs.ix.p
			p.vo.M, p.vo.EfConstruction, p.vo.EfSearch, p.vo.KeepPruned = 3, 3, 1, false
			for _, s := range p.graphs {
				s.g.Tune(p.vo)
			}
			return vs
		}
		vs := open()
		sees := func() string {
			var b strings.Builder
			for _, q := range queries {
				hits, _, err := vs.Rank(ctx, persist.Access{Principal: "bob"}, VectorQuery{Vector: q, Depth: 30})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%v\n", hits)
			}
			return b.String()
		}
		ar := rand.New(rand.NewPCG(9, 9))
		for i, v := range bob {
			put(t, st, i+1, "bob", "b", v)
			if interleaved {
				for k := range 1 + ar.IntN(3) {
					put(t, st, 100_000+i*4+k, "alice", "a", vec(ar))
				}
				if ar.IntN(5) == 0 {
					sees() // a catch-up: the change log is cut here
				}
			}
		}
		first := sees()
		vs.ix.emu.RLock()
		gs := len(vs.ix.p.graphs)
		vs.ix.emu.RUnlock()
		if gs == 0 {
			t.Fatal("bob's scope has no graph: the test does not exercise the groups")
		}
		checkPartition(t, vs.ix)
		if err := vs.Close(); err != nil {
			t.Fatal(err)
		}
		vs = open()
		defer vs.Close()
		checkPartition(t, vs.ix)
		return first, sees()
	}
	alone, aloneRestarted := world(false)
	mixed, mixedRestarted := world(true)
	if alone != mixed {
		t.Fatal("alice's interleaved writes and the change log's cuts changed bob's results")
	}
	if aloneRestarted != alone || mixedRestarted != mixed {
		t.Fatal("a restart from the snapshot changed bob's results")
	}
}
