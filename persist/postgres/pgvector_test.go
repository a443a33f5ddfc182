package postgres

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/contextd/contextd/persist/sqlval"
)

// openLite opens a store on the PGlite server (pgvector), skipping without
// one: two connections at most (the server takes four) and no prepared
// statements (its one session would share them).
func openLite(t testing.TB, force int) *Store {
	t.Helper()
	url, schema := pgtest.Lite(t)
	none := 0
	st, err := Open(context.Background(), Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: 2, StatementCacheSize: &none})
	if err != nil {
		t.Fatalf("open on PGlite: %v", err)
	}
	// Closed before pgtest.Lite's reset and unlock (cleanups run last
	// first): a store left open would keep two of PGlite's four
	// connections from the next test, in this binary or another.
	t.Cleanup(func() { st.Close() })
	st.vecForce = force
	return st
}

// TestNativeVectorsPgvector runs the native vector search group of the
// storage suite (the functions the SQLite store runs on sqlite-vec) on
// pgvector, once per strategy: chosen by the candidate count, forced
// exact scan, forced HNSW (with ef_search at its maximum, which on these
// small tables visits every chunk, so the suite's exact answers hold).
func TestNativeVectorsPgvector(t *testing.T) {
	for _, c := range []struct {
		name  string
		force int
	}{{"auto", vecAuto}, {"exact", vecExact}, {"hnsw", vecHNSW}} {
		t.Run(c.name, func(t *testing.T) {
			persisttest.RunNativeVectors(t, func(t *testing.T) persist.Store { return openLite(t, c.force) })
		})
	}
}

// TestNativeVectorsNoPgvector: on a server without pgvector (the Debian
// PostgreSQL 15 of the test script) EnsureVectorTable, the start-up step
// of SEARCH_BACKEND=native with semantic search, fails with an error that
// names pgvector and what to do and matches ErrUnavailable; search says
// the same; native full text works; nothing is created.
func TestNativeVectorsNoPgvector(t *testing.T) {
	st := open(t, Options{})
	ctx := context.Background()
	var avail bool
	if err := st.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&avail); err != nil {
		t.Fatal(err)
	}
	if avail {
		t.Skip("this server has pgvector (TestNativeVectorsPgvector covers it)")
	}
	err := st.Native().Vectors.EnsureVectorTable(ctx, 4)
	if !errors.Is(err, cerrors.ErrUnavailable) {
		t.Fatalf("ensure without pgvector: %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"pgvector", "SEARCH_BACKEND=in-process", "ENABLE_SEMANTIC_SEARCH=false", "CREATE EXTENSION vector"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := st.VectorSearch(ctx, persist.Access{Principal: "alice"}, persist.VectorQuery{Vector: []float32{1, 0, 0, 0}, Limit: 3}); !errors.Is(err, cerrors.ErrUnavailable) {
		t.Fatalf("search without pgvector: %v", err)
	}
	if err := st.DropVectorTable(ctx); err != nil {
		t.Fatalf("drop without pgvector: %v", err)
	}
	var tables int
	if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname = $1`, vecTable).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("vector tables after a refused ensure: %d, %v", tables, err)
	}
	persisttest.Insert(t, st, []persist.Entry{persisttest.NewEntry(1, "t", "user", "alice")}, nil)
	res, err := st.FullTextSearch(ctx, persist.Access{Principal: "alice"}, persist.FullTextQuery{Query: "entry", Limit: 5})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("native full text without pgvector: %+v, %v", res, err)
	}
}

// TestVectorDecode: contextd_f32le (migration 0004), which fills the
// pgvector table from the stored bytes, gives back every float32 exactly:
// random normals, subnormals, signed zeros, the extremes.
func TestVectorDecode(t *testing.T) {
	st := open(t, Options{})
	rng := rand.New(rand.NewPCG(3, 5))
	v := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1.1754942e-38, 1.1754944e-38, 3.4e-39}
	for range 500 {
		v = append(v, float32(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10))))
	}
	var got []float32
	if err := st.pool.QueryRow(context.Background(), `SELECT contextd_f32le($1)`, sqlval.EncodeVector(v)).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(v) {
		t.Fatalf("%d values back, want %d", len(got), len(v))
	}
	for i := range v {
		if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
			t.Fatalf("value %d: %g (%08x), want %g (%08x)", i, got[i], math.Float32bits(got[i]), v[i], math.Float32bits(v[i]))
		}
	}
	var empty []float32
	if err := st.pool.QueryRow(context.Background(), `SELECT contextd_f32le('\x'::bytea)`).Scan(&empty); err != nil || len(empty) != 0 {
		t.Fatalf("no bytes: %v, %v", empty, err)
	}
}

// TestVectorRecallHNSW is the oracle test of the approximate strategy:
// 1000 entries of one random 16-dimensional chunk, with the exact-scan
// floor lowered to 256 candidates (the default, 2000, would need a table
// that takes PGlite a minute to fill), so that an unfiltered search walks
// the HNSW index (the plan says so), and 40 queries whose
// top 10 are compared with the exact top 10 computed here in Go. Recall@10
// must reach 0.95 (HNSW m=16, ef_construction=64, ef_search=k=80), and
// every hit's distance must be its true distance.
func TestVectorRecallHNSW(t *testing.T) {
	const n, dim, queries, k = 1000, 16, 40, 10
	st := openLite(t, vecAuto)
	st.vecExactMin = 256
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 19))
	vecs := make([][]float32, n)
	es := make([]persist.Entry, n)
	for i := range vecs {
		es[i] = persisttest.NewEntry(i+1, "t", "user", "alice")
		vecs[i] = randVec(rng, dim)
	}
	persisttest.Insert(t, st, es, nil)
	if err := st.Write(ctx, func(tx persist.Tx) error {
		for i, v := range vecs {
			if err := tx.SetEmbeddings(ctx, es[i].ID, persisttest.Embeddings(dim, v)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureVectorTable(ctx, dim); err != nil {
		t.Fatal(err)
	}
	if _, err := st.pool.Exec(ctx, `ANALYZE `+vecTable); err != nil {
		t.Fatal(err)
	}
	var found, want int
	for qi := range queries {
		q := randVec(rng, dim)
		res, err := st.VectorSearch(ctx, persist.Access{Principal: "alice"}, persist.VectorQuery{Vector: q, Limit: k, Explain: qi == 0})
		if err != nil {
			t.Fatal(err)
		}
		if qi == 0 && (!strings.HasPrefix(res.Plan, "pgvector hnsw") || !strings.Contains(res.Plan, vecTable+"_hnsw")) {
			t.Fatalf("unfiltered search over %d chunks did not walk the HNSW index:\n%s", n, res.Plan)
		}
		dist := func(i int) float64 {
			var s float64
			for j := range q {
				d := float64(vecs[i][j]) - float64(q[j])
				s += d * d
			}
			return math.Sqrt(s)
		}
		exact := make([]int, n)
		for i := range exact {
			exact[i] = i
		}
		slices.SortFunc(exact, func(a, b int) int { return cmp.Compare(dist(a), dist(b)) })
		top := map[string]bool{}
		for _, i := range exact[:k] {
			top[es[i].ID] = true
		}
		for _, h := range res.Hits {
			if top[h.ID] {
				found++
			}
			i := slices.IndexFunc(es, func(e persist.Entry) bool { return e.ID == h.ID })
			if math.Abs(h.Distance-dist(i)) > 1e-4 {
				t.Fatalf("hit %s at distance %g, true distance %g", h.ID, h.Distance, dist(i))
			}
		}
		want += k
	}
	recall := float64(found) / float64(want)
	t.Logf("recall@%d over %d queries: %.3f", k, queries, recall)
	if recall < 0.95 {
		t.Fatalf("HNSW recall@%d %.3f < 0.95", k, recall)
	}
}

// randVec is a vector of dim standard normal components.
func randVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	return v
}

// TestVectorSearchStaleTable: two replicas on one database; one drops the
// vector table after the other has seen it, and the other's next search
// still answers (from the stored chunks), then follows a rebuild.
func TestVectorSearchStaleTable(t *testing.T) {
	url, schema := pgtest.Lite(t)
	ctx := context.Background()
	none := 0
	opts := Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: 1, StatementCacheSize: &none}
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	persisttest.Insert(t, a, []persist.Entry{persisttest.NewEntry(1, "t", "user", "alice"), persisttest.NewEntry(2, "t", "user", "alice")}, nil)
	persisttest.SetEmbeddings(t, a, persisttest.ID(1), persisttest.Embeddings(2, []float32{1, 0}))
	persisttest.SetEmbeddings(t, a, persisttest.ID(2), persisttest.Embeddings(2, []float32{3, 0}))
	if err := a.EnsureVectorTable(ctx, 2); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	search := func(want string) {
		t.Helper()
		res, err := b.VectorSearch(ctx, persist.Access{Principal: "alice"}, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 5, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(vecIDs(res.Hits), ","); got != want {
			t.Fatalf("hits %s, want %s\n%s", got, want, res.Plan)
		}
	}
	search(persisttest.ID(1) + "," + persisttest.ID(2))
	if err := a.DropVectorTable(ctx); err != nil {
		t.Fatal(err)
	}
	persisttest.SetEmbeddings(t, a, persisttest.ID(2), persisttest.Embeddings(2, []float32{0.5, 0}))
	search(persisttest.ID(2) + "," + persisttest.ID(1))
	if b.vecState().dim != 0 {
		t.Fatalf("b still sees a table of dimension %d", b.vecState().dim)
	}
	if err := a.EnsureVectorTable(ctx, 2); err != nil {
		t.Fatal(err)
	}
	search(persisttest.ID(2) + "," + persisttest.ID(1))
	if b.vecState().dim != 2 {
		t.Fatalf("b did not follow the rebuild: dimension %d", b.vecState().dim)
	}
}

func vecIDs(hs []persist.VectorHit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}
