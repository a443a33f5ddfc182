package persisttest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

func (s suite) nativeVectors(t *testing.T) {
	t.Run("Access", s.vectorSearchAccess)
	t.Run("Filters", s.vectorSearchFilters)
	t.Run("FilterMetadata", s.vectorSearchMetadata)
	t.Run("Errors", s.vectorSearchErrors)
	t.Run("ManyChunks", s.vectorSearchManyChunks)
	t.Run("Oracle", s.vectorSearchOracle)
	t.Run("EnsureDrop", s.vectorSearchEnsureDrop)
	t.Run("CodeOnly_C14", s.vectorSearchCodeOnly)
}

// vectorStore opens a store with native vector search (skipping t when
// the backend has none).
func (s suite) vectorStore(t *testing.T) (persist.Store, persist.NativeVectors) {
	t.Helper()
	st := s.store(t)
	nv := st.Native().Vectors
	if nv == nil {
		t.Skipf("backend %s has no native vector search", st.Backend())
	}
	return st, nv
}

func ensure(t testing.TB, nv persist.NativeVectors, dim int) {
	t.Helper()
	err := nv.EnsureVectorTable(context.Background(), dim)
	if errors.Is(err, cerrors.ErrUnavailable) {
		// A server without the engine (PostgreSQL without pgvector):
		// the backend runs this group where it has one.
		t.Skipf("native vector search unavailable: %v", err)
	}
	if err != nil {
		t.Fatalf("ensure vector table of %d: %v", dim, err)
	}
}

func vectorSearch(t testing.TB, nv persist.NativeVectors, acc persist.Access, q persist.VectorQuery) []persist.VectorHit {
	t.Helper()
	res, err := nv.VectorSearch(context.Background(), acc, q)
	if err != nil {
		t.Fatalf("vector search %+v: %v", q, err)
	}
	return res.Hits
}

func vecHitIDs(hs []persist.VectorHit) []string {
	return mapped(hs, func(h persist.VectorHit) string { return h.ID })
}

// vectorSearchAccess: over accessFixture with accessVectors, only readable
// entries are hits, nearest first, and hidden ones never take a slot.
func (s suite) vectorSearchAccess(t *testing.T) {
	st, nv := s.vectorStore(t)
	ensure(t, nv, 2)
	accessFixture(t, st)
	accessVectors(t, st)
	for _, tc := range readers {
		t.Run(tc.name, func(t *testing.T) {
			// Entry n's nearest chunk to (0, 0) is (n, 0): readable entries in order.
			hits := vectorSearch(t, nv, tc.acc, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 10})
			if got := vecHitIDs(hits); !slices.Equal(got, tc.want) {
				t.Fatalf("hits %v, want %v", got, tc.want)
			}
			// Limit 1: the nearest readable entry, not a hidden one.
			hits = vectorSearch(t, nv, tc.acc, persist.VectorQuery{Vector: []float32{6, 0}, Limit: 1})
			if len(hits) != 1 || !slices.Contains(tc.want, hits[0].ID) {
				t.Fatalf("limit 1: %v", hits)
			}
		})
	}
}

// filterVectors gives entry n of filterFixture chunk 0 at (n, 0); entries
// 5 and 6 also hold a chunk at (0.5, 0) twice (a tie inside the entry,
// spans 40 and 30), entry 4 only one of dimension 3.
func filterVectors(t testing.TB, st persist.Store) {
	t.Helper()
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for n := 1; n <= 6; n++ {
			e := Embeddings(2, []float32{float32(n), 0})
			if n >= 5 {
				e = Embeddings(2, []float32{float32(n), 0}, []float32{0.5, 0}, []float32{0.5, 0})
				e.Chunks[1].Start, e.Chunks[1].End = 40, 50
				e.Chunks[2].Start, e.Chunks[2].End = 30, 40
			}
			if n == 4 {
				e = Embeddings(3, []float32{0, 0, 0})
			}
			if err := tx.SetEmbeddings(ctx, ID(n), e); err != nil {
				return err
			}
		}
		return nil
	})
}

// vecHit is what the filter tests compare of a hit.
type vecHit struct {
	id    string
	dist  float64
	start int
}

func vecHits(hs []persist.VectorHit) []vecHit {
	return mapped(hs, func(h persist.VectorHit) vecHit { return vecHit{h.ID, h.Distance, h.Start} })
}

// vectorSearchFilters: every filter, ties between entries by id, the best
// chunk of an entry by distance then start.
func (s suite) vectorSearchFilters(t *testing.T) {
	st, nv := s.vectorStore(t)
	ensure(t, nv, 2)
	filterFixture(t, st)
	filterVectors(t, st)
	tests := []struct {
		name string
		f    persist.Filter
		lim  int
		want []vecHit
	}{
		{"all", persist.Filter{}, 10, []vecHit{{ID(5), 0.5, 30}, {ID(6), 0.5, 30}, {ID(1), 1, 0}, {ID(2), 2, 0}, {ID(3), 3, 0}}},
		{"limit ties by id", persist.Filter{}, 1, []vecHit{{ID(5), 0.5, 30}}},
		{"thread", persist.Filter{ThreadID: "t2"}, 10, []vecHit{{ID(3), 3, 0}}},
		{"source", persist.Filter{Source: "agent"}, 10, []vecHit{{ID(2), 2, 0}}},
		{"content type", persist.Filter{ContentType: "text"}, 3, []vecHit{{ID(5), 0.5, 30}, {ID(6), 0.5, 30}, {ID(1), 1, 0}}},
		{"tags", persist.Filter{Tags: []string{"c"}}, 10, []vecHit{{ID(5), 0.5, 30}, {ID(3), 3, 0}}},
		{"dates", persist.Filter{Start: tp(At(2)), End: tp(At(5))}, 10, []vecHit{{ID(5), 0.5, 30}, {ID(2), 2, 0}, {ID(3), 3, 0}}},
		{"ids", persist.Filter{IDs: IDs(3, 4, 6)}, 10, []vecHit{{ID(6), 0.5, 30}, {ID(3), 3, 0}}},
		{"ids empty", persist.Filter{IDs: []string{}}, 10, nil},
		{"before", persist.Filter{Before: &persist.Position{CreatedAt: At(3), ID: ID(3)}}, 10, []vecHit{{ID(1), 1, 0}, {ID(2), 2, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits := vectorSearch(t, nv, alice, persist.VectorQuery{Filter: tc.f, Vector: []float32{0, 0}, Limit: tc.lim, Explain: true})
			if got := vecHits(hits); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("hits %v, want %v", got, tc.want)
			}
		})
	}
}

func (s suite) vectorSearchMetadata(t *testing.T) {
	st, nv := s.vectorStore(t)
	ensure(t, nv, 2)
	filterFixture(t, st)
	filterVectors(t, st)
	e := NewEntry(7, "t9", "user", "alice")
	e.Metadata = meta(t, map[string]any{"status": "done"})
	Insert(t, st, []persist.Entry{e}, nil)
	SetEmbeddings(t, st, ID(7), Embeddings(2, []float32{9, 9}))
	hits := vectorSearch(t, nv, alice, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 5,
		Filter: persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "done"}}}})
	if len(hits) != 1 || hits[0].ID != ID(7) {
		t.Fatalf("hits %v", hits)
	}
}

// vectorSearchErrors: a bad query vector is an error, limit 0 an empty
// answer, and a query of another dimension than the table's searches the
// chunks of its own dimension.
func (s suite) vectorSearchErrors(t *testing.T) {
	ctx := context.Background()
	st, nv := s.vectorStore(t)
	ensure(t, nv, 2)
	filterFixture(t, st)
	filterVectors(t, st)
	for _, v := range [][]float32{nil, {float32(math.NaN()), 0}} {
		if _, err := nv.VectorSearch(ctx, alice, persist.VectorQuery{Vector: v, Limit: 3}); err == nil {
			t.Fatalf("query vector %v accepted", v)
		}
	}
	res, err := nv.VectorSearch(ctx, alice, persist.VectorQuery{Vector: []float32{1, 1}})
	if err != nil || res.Hits == nil || len(res.Hits) != 0 {
		t.Fatalf("limit 0: %v %v", res.Hits, err)
	}
	ensure(t, nv, 2)
	hits := vectorSearch(t, nv, alice, persist.VectorQuery{Vector: []float32{0, 0, 0}, Limit: 3})
	if len(hits) != 1 || hits[0].ID != ID(4) || hits[0].Distance != 0 {
		t.Fatalf("dimension 3 query: %v", hits)
	}
}

// vectorSearchManyChunks: entries of 30 chunks each near the query, so
// that the nearest chunks alone belong to few entries; the farthest entry
// is the only one bob reads.
func (s suite) vectorSearchManyChunks(t *testing.T) {
	st, nv := s.vectorStore(t)
	var es []persist.Entry
	for n := 1; n <= 40; n++ {
		es = append(es, NewEntry(n, "t", "user", "alice"))
	}
	es[39].Owner = "bob" // the farthest entry is bob's
	Insert(t, st, es, nil)
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for n := 1; n <= 40; n++ {
			var vs [][]float32
			for c := 0; c < 30; c++ {
				vs = append(vs, []float32{float32(n) + float32(c)/100, 0})
			}
			if err := tx.SetEmbeddings(ctx, ID(n), Embeddings(2, vs...)); err != nil {
				return err
			}
		}
		return nil
	})
	ensure(t, nv, 2)
	for _, tc := range []struct {
		acc  persist.Access
		want []string
	}{{alice, IDs(1, 2, 3, 4, 5)}, {bob, IDs(40)}} {
		hits := vectorSearch(t, nv, tc.acc, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 5, Explain: true})
		if got := vecHitIDs(hits); !slices.Equal(got, tc.want) {
			t.Fatalf("%s: hits %v, want %v", tc.acc.Principal, got, tc.want)
		}
		if hits[0].Start != 0 {
			t.Fatalf("%s: best chunk starts at %d", tc.acc.Principal, hits[0].Start)
		}
	}
}

// vectorSearchEnsureDrop: the vector table follows every write once it
// exists, is rebuilt by EnsureVectorTable after a drop (with the writes
// made meanwhile) and for another dimension.
func (s suite) vectorSearchEnsureDrop(t *testing.T) {
	ctx := context.Background()
	st, nv := s.vectorStore(t)
	if err := nv.EnsureVectorTable(ctx, 0); err == nil {
		t.Fatal("dimension 0 accepted")
	}
	var es []persist.Entry
	for n := 1; n <= 6; n++ {
		es = append(es, NewEntry(n, "t", "user", "alice"))
	}
	Insert(t, st, es, nil)
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{1, 1}, []float32{1, 2}))
	SetEmbeddings(t, st, ID(2), Embeddings(3, []float32{1, 1, 1})) // another dimension
	nearest := func(want ...string) {
		t.Helper()
		hits := vectorSearch(t, nv, alice, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 10})
		if got := vecHitIDs(hits); !slices.Equal(got, want) {
			t.Fatalf("hits %v, want %v", got, want)
		}
	}
	ensure(t, nv, 2)
	nearest(ID(1))
	SetEmbeddings(t, st, ID(2), Embeddings(2, []float32{2, 2}))
	SetEmbeddings(t, st, ID(3), Embeddings(2, []float32{3, 3}, []float32{3, 4}))
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{5, 0}))
	nearest(IDs(2, 3, 1)...)
	deleteIDs(t, st, ID(3))
	nearest(IDs(2, 1)...)
	ensure(t, nv, 2) // again: nothing changes
	nearest(IDs(2, 1)...)

	if err := nv.DropVectorTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := nv.DropVectorTable(ctx); err != nil {
		t.Fatalf("second drop: %v", err)
	}
	SetEmbeddings(t, st, ID(4), Embeddings(2, []float32{0.5, 0.5}))
	SetEmbeddings(t, st, ID(2), persist.Embeddings{})
	ensure(t, nv, 2)
	nearest(IDs(4, 1)...)

	// Another dimension: the chunks of that one.
	SetEmbeddings(t, st, ID(5), Embeddings(3, []float32{5, 5, 5}))
	ensure(t, nv, 3)
	hits := vectorSearch(t, nv, alice, persist.VectorQuery{Vector: []float32{5, 5, 5}, Limit: 10})
	if got := vecHitIDs(hits); !slices.Equal(got, IDs(5)) || hits[0].Distance != 0 {
		t.Fatalf("dimension 3: %v", hits)
	}
	ensure(t, nv, 2)
	SetEmbeddings(t, st, ID(6), Embeddings(2, []float32{0, 0}))
	nearest(IDs(6, 4, 1)...)
}
