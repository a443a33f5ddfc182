package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// embs builds Embeddings of dimension dim, one chunk per vector; chunk i
// spans [10i, 10i+10).
func embs(dim int, vecs ...[]float32) persist.Embeddings {
	e := persist.Embeddings{Model: "test-model", Dim: dim}
	for i, v := range vecs {
		e.Chunks = append(e.Chunks, persist.ChunkVector{Index: i, Start: 10 * i, End: 10*i + 10, Vector: v})
	}
	return e
}

func setEmb(t testing.TB, s *Store, id string, e persist.Embeddings) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, func(ptx persist.Tx) error { return ptx.(*tx).SetEmbeddings(ctx, id, e) })
	if err != nil {
		t.Fatalf("set embeddings of %s: %v", id, err)
	}
}

func vdocs(t testing.TB, s *Store, ids ...string) []persist.VectorDoc {
	t.Helper()
	docs, err := s.VectorDocs(context.Background(), ids)
	if err != nil {
		t.Fatalf("vector docs: %v", err)
	}
	return docs
}

func docIDs(docs []persist.VectorDoc) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

// chunkKeys returns every embedding_chunks id, ascending.
func chunkKeys(t testing.TB, s *Store) []int64 {
	t.Helper()
	return int64s(t, s, `SELECT id FROM embedding_chunks ORDER BY id`)
}

// vecKeys returns every rowid of the sqlite-vec table, ascending.
func vecKeys(t testing.TB, s *Store) []int64 {
	t.Helper()
	return int64s(t, s, `SELECT rowid FROM `+vecTable+` ORDER BY rowid`)
}

func int64s(t testing.TB, s *Store, q string) []int64 {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func eqInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkVecSync fails unless the sqlite-vec table holds exactly the chunks.
func checkVecSync(t testing.TB, s *Store) {
	t.Helper()
	if got, want := vecKeys(t, s), chunkKeys(t, s); !eqInt64s(got, want) {
		t.Fatalf("vec0 rows %v, chunk rows %v", got, want)
	}
}

func TestEmbeddingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice"), entry(2, "t", "user", "alice"), entry(3, "t", "user", "alice")}, nil)
	setEmb(t, s, tid(3), embs(3, []float32{1, 2, 3}))
	setEmb(t, s, tid(1), embs(3, []float32{0.5, -1, 2}, []float32{math.MaxFloat32, -0, 1e-30}))

	docs := vdocs(t, s, tid(3), tid(2), tid(1), tid(99))
	if !eqStrings(docIDs(docs), nums(1, 3)) {
		t.Fatalf("docs %v, want entries 1 and 3", docIDs(docs))
	}
	d1 := docs[0]
	if len(d1.Chunks) != 2 {
		t.Fatalf("entry 1 has %d chunks, want 2", len(d1.Chunks))
	}
	for i, c := range d1.Chunks {
		want := embs(3, []float32{0.5, -1, 2}, []float32{math.MaxFloat32, -0, 1e-30}).Chunks[i]
		if c.Index != want.Index || c.Start != want.Start || c.End != want.End || fmt.Sprint(c.Vector) != fmt.Sprint(want.Vector) {
			t.Fatalf("chunk %d = %+v, want %+v", i, c.ChunkVector, want)
		}
		if c.Key == 0 {
			t.Fatalf("chunk %d has no key", i)
		}
	}
	if d1.Chunks[0].Key == d1.Chunks[1].Key || d1.Chunks[0].Key == docs[1].Chunks[0].Key {
		t.Fatalf("keys are not distinct: %v %v", d1.Chunks, docs[1].Chunks)
	}

	scans := []struct {
		after string
		limit int
		want  []string
	}{
		{"", 1, nums(1)},
		{"", 0, nums(1, 3)},
		{"", 10, nums(1, 3)},
		{tid(1), 10, nums(3)},
		{tid(3), 10, nil},
	}
	for _, sc := range scans {
		got, err := s.ScanVectorDocs(ctx, sc.after, sc.limit)
		if err != nil {
			t.Fatalf("scan after %q: %v", sc.after, err)
		}
		if !eqStrings(docIDs(got), sc.want) {
			t.Fatalf("scan after %q limit %d = %v, want %v", sc.after, sc.limit, docIDs(got), sc.want)
		}
		if len(got) > 0 && len(got[0].Chunks) == 0 {
			t.Fatalf("scan returned a doc without chunks")
		}
	}

	for _, c := range []struct {
		id   string
		want bool
	}{{tid(1), true}, {tid(2), false}, {tid(99), false}} {
		has, err := s.HasEmbeddings(ctx, c.id)
		if err != nil || has != c.want {
			t.Fatalf("HasEmbeddings(%s) = %v, %v; want %v", c.id, has, err, c.want)
		}
	}
	n, err := s.EmbeddingBytes(ctx)
	if err != nil || n != 3*3*4 {
		t.Fatalf("EmbeddingBytes = %d, %v; want 36", n, err)
	}
	var blobs int64
	if err := s.r.QueryRow(`SELECT sum(length(embedding)) FROM embedding_chunks`).Scan(&blobs); err != nil || blobs != n {
		t.Fatalf("blob bytes %d (%v), EmbeddingBytes %d", blobs, err, n)
	}
	ents, chunks, err := s.EmbeddingCounts(ctx, alice)
	if err != nil || ents != 2 || chunks != 3 {
		t.Fatalf("EmbeddingCounts = %d, %d, %v; want 2, 3", ents, chunks, err)
	}
	var model string
	var dims, count int
	if err := s.r.QueryRow(`SELECT model_name, dimensions, chunk_count FROM embedding_metadata WHERE context_id = ?`, tid(1)).
		Scan(&model, &dims, &count); err != nil || model != "test-model" || dims != 3 || count != 2 {
		t.Fatalf("metadata = %q %d %d (%v)", model, dims, count, err)
	}
	// A transaction sees its own vectors.
	err = s.Write(ctx, func(ptx persist.Tx) error {
		x := ptx.(*tx)
		if err := x.SetEmbeddings(ctx, tid(2), embs(3, []float32{9, 9, 9})); err != nil {
			return err
		}
		has, err := x.HasEmbeddings(ctx, tid(2))
		if err != nil || !has {
			return fmt.Errorf("HasEmbeddings inside the write = %v, %v", has, err)
		}
		if d, err := x.VectorDocs(ctx, nums(2)); err != nil || len(d) != 1 {
			return fmt.Errorf("VectorDocs inside the write = %v, %v", d, err)
		}
		return x.SetEmbeddings(ctx, tid(2), persist.Embeddings{})
	})
	if err != nil {
		t.Fatal(err)
	}
	// SetEmbeddings writes no change-log row.
	chs, err := s.Changes(ctx, 0, 0)
	if err != nil || len(chs) != 3 {
		t.Fatalf("change log %v (%v), want the 3 inserts only", chs, err)
	}
	for _, c := range chs {
		if c.Op != persist.OpInsert {
			t.Fatalf("change log %v, want the 3 inserts only", chs)
		}
	}
}

// TestEmbeddingsReplaceDelete runs with and without foreign keys, with and
// without the sqlite-vec table.
func TestEmbeddingsReplaceDelete(t *testing.T) {
	for _, fk := range []bool{true, false} {
		for _, native := range []bool{true, false} {
			t.Run(fmt.Sprintf("fk=%v native=%v", fk, native), func(t *testing.T) {
				ctx := context.Background()
				s, err := Open(ctx, Options{Path: tempDB(t), ForeignKeys: &fk})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if native {
					if err := s.EnsureVectorTable(ctx, 2); err != nil {
						t.Fatal(err)
					}
				}
				insert(t, s, []persist.Entry{entry(1, "t", "user", "alice"), entry(2, "t", "user", "alice")}, nil)
				setEmb(t, s, tid(1), embs(2, []float32{1, 0}, []float32{0, 1}))
				setEmb(t, s, tid(2), embs(2, []float32{1, 1}))
				old := vdocs(t, s, tid(1))[0].Chunks

				setEmb(t, s, tid(1), embs(2, []float32{2, 2}, []float32{3, 3}, []float32{4, 4}))
				d := vdocs(t, s, tid(1))[0]
				if len(d.Chunks) != 3 || d.Chunks[2].Vector[0] != 4 {
					t.Fatalf("after replace: %+v", d.Chunks)
				}
				for _, c := range d.Chunks {
					for _, o := range old {
						if c.Key <= o.Key {
							t.Fatalf("key %d reused or not increasing (old %d)", c.Key, o.Key)
						}
					}
				}
				if ents, chunks, _ := s.EmbeddingCounts(ctx, alice); ents != 2 || chunks != 4 {
					t.Fatalf("counts after replace = %d, %d", ents, chunks)
				}
				if native {
					checkVecSync(t, s)
				}

				setEmb(t, s, tid(1), persist.Embeddings{})
				if got := vdocs(t, s, tid(1), tid(2)); !eqStrings(docIDs(got), nums(2)) {
					t.Fatalf("after clearing: %v", docIDs(got))
				}
				setEmb(t, s, tid(1), embs(2, []float32{5, 5}))
				if err := s.Write(ctx, func(tx persist.Tx) error {
					_, err := tx.Delete(ctx, nums(1, 2))
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if got := chunkKeys(t, s); len(got) != 0 {
					t.Fatalf("chunks left after delete: %v", got)
				}
				var meta int
				if err := s.r.QueryRow(`SELECT count(*) FROM embedding_metadata`).Scan(&meta); err != nil || meta != 0 {
					t.Fatalf("metadata rows left after delete: %d (%v)", meta, err)
				}
				if native {
					checkVecSync(t, s)
				}
				if n, _ := s.EmbeddingBytes(ctx); n != 0 {
					t.Fatalf("bytes after delete = %d", n)
				}
			})
		}
	}
}

func TestEmbeddingsRejected(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	if err := s.EnsureVectorTable(ctx, 2); err != nil {
		t.Fatal(err)
	}
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	setEmb(t, s, tid(1), embs(2, []float32{1, 2}))
	before := vdocs(t, s, tid(1))
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name string
		id   string
		e    persist.Embeddings
		want string
	}{
		{"zero dim", tid(1), persist.Embeddings{Chunks: []persist.ChunkVector{{Vector: []float32{}}}}, "dimension 0"},
		{"negative dim", tid(1), persist.Embeddings{Dim: -1, Chunks: []persist.ChunkVector{{Vector: []float32{1}}}}, "dimension -1"},
		{"short vector", tid(1), embs(2, []float32{1, 2}, []float32{1}), "chunk 1: vector has 1 dimensions"},
		{"long vector", tid(1), embs(2, []float32{1, 2, 3}), "chunk 0: vector has 3 dimensions"},
		{"nil vector", tid(1), embs(2, nil), "vector has 0 dimensions"},
		{"nan", tid(1), embs(2, []float32{1, 2}, []float32{nan, 0}), "chunk 1: value 0 is not a finite number"},
		{"inf", tid(1), embs(2, []float32{-inf, 0}), "not a finite number"},
		{"bad span", tid(1), persist.Embeddings{Dim: 1, Chunks: []persist.ChunkVector{{Start: 5, End: 4, Vector: []float32{1}}}}, "bad span"},
		{"negative start", tid(1), persist.Embeddings{Dim: 1, Chunks: []persist.ChunkVector{{Start: -1, End: 4, Vector: []float32{1}}}}, "bad span"},
		{"no entry", tid(9), embs(2, []float32{1, 2}), "no entry"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Write(ctx, func(ptx persist.Tx) error { return ptx.(*tx).SetEmbeddings(ctx, tc.id, tc.e) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			after := vdocs(t, s, tid(1), tid(9))
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("data changed: %v, was %v", after, before)
			}
			checkVecSync(t, s)
		})
	}
	// A bad vector later in the same transaction rolls the good one back.
	err := s.Write(ctx, func(ptx persist.Tx) error {
		if err := ptx.(*tx).SetEmbeddings(ctx, tid(1), embs(2, []float32{7, 7})); err != nil {
			return err
		}
		return ptx.(*tx).SetEmbeddings(ctx, tid(1), embs(2, []float32{nan, 7}))
	})
	if err == nil {
		t.Fatal("bad vector accepted")
	}
	if after := vdocs(t, s, tid(1)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("rolled-back write changed data: %v", after)
	}
	checkVecSync(t, s)
	// Clearing the vectors of a missing entry is a no-op.
	setEmb(t, s, tid(9), persist.Embeddings{})
}

func TestEmbeddingModel(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	if _, ok, err := s.EmbeddingModel(ctx); ok || err != nil {
		t.Fatalf("fresh store: ok %v err %v", ok, err)
	}
	for _, m := range []persist.EmbeddingModel{{Model: "a", Dim: 3}, {Model: "b", Dim: 768}} {
		if err := s.SetEmbeddingModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.EmbeddingModel(ctx)
		if err != nil || !ok || got != m {
			t.Fatalf("EmbeddingModel = %+v %v %v, want %+v", got, ok, err, m)
		}
	}
	if err := s.SetEmbeddingModel(ctx, persist.EmbeddingModel{Model: "c"}); err == nil {
		t.Fatal("dimension 0 accepted")
	}
	var rows int
	if err := s.r.QueryRow(`SELECT count(*) FROM embedding_model`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("embedding_model rows %d (%v)", rows, err)
	}
}

// TestEmbeddingsAccess checks counts and vector search over the readable
// entries of accessStore only.
func TestEmbeddingsAccess(t *testing.T) {
	ctx := context.Background()
	s := accessStore(t)
	if err := s.EnsureVectorTable(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 8; n++ {
		// Entry n has n chunks at (n, 0), (n, 1), ...
		var vs [][]float32
		for i := 0; i < n; i++ {
			vs = append(vs, []float32{float32(n), float32(i)})
		}
		setEmb(t, s, tid(n), embs(2, vs...))
	}
	carol := persist.Access{Principal: "carol"}
	nobody := persist.Access{Principal: "nobody"}
	tests := []struct {
		name string
		acc  persist.Access
		want []string // readable entries, nearest to (0, 0) first
	}{
		{"alice", alice, nums(1, 2, 3, 4, 5, 7, 8)},
		{"bob", bob, nums(2, 3, 5, 6)},
		{"bob in team", bobTeam, nums(2, 3, 4, 5, 6, 7)},
		{"carol", carol, nums(2, 8)},
		{"nobody", nobody, nums(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks := 0
			for _, id := range tc.want {
				var n int
				fmt.Sscanf(id, "%x", &n)
				chunks += n
			}
			ents, ch, err := s.EmbeddingCounts(ctx, tc.acc)
			if err != nil || ents != len(tc.want) || ch != chunks {
				t.Fatalf("counts = %d, %d, %v; want %d, %d", ents, ch, err, len(tc.want), chunks)
			}
			for _, native := range []bool{true, false} {
				setNative(t, s, native, 2)
				res, err := s.VectorSearch(ctx, tc.acc, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.ID)
				}
				if !eqStrings(got, tc.want) {
					t.Fatalf("native=%v: hits %v, want %v", native, got, tc.want)
				}
				// Limit 1: the nearest readable entry, not a hidden one.
				res, err = s.VectorSearch(ctx, tc.acc, persist.VectorQuery{Vector: []float32{6, 0}, Limit: 1})
				if err != nil || len(res.Hits) != 1 {
					t.Fatalf("limit 1: %v %v", res.Hits, err)
				}
				if !contains(tc.want, res.Hits[0].ID) {
					t.Fatalf("limit 1 returned hidden entry %s", res.Hits[0].ID)
				}
			}
		})
	}
}

// setNative creates (with dimension dim) or drops the sqlite-vec table.
func setNative(t testing.TB, s *Store, on bool, dim int) {
	t.Helper()
	var err error
	if on {
		err = s.EnsureVectorTable(context.Background(), dim)
	} else {
		err = s.DropVectorTable(context.Background())
	}
	if err != nil {
		t.Fatalf("native=%v: %v", on, err)
	}
}

func TestVectorTableSync(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	s := openFile(t, path)
	if s.VectorTableDim() != 0 {
		t.Fatalf("new store has a vector table of %d", s.VectorTableDim())
	}
	var es []persist.Entry
	for n := 1; n <= 6; n++ {
		es = append(es, entry(n, "t", "user", "alice"))
	}
	insert(t, s, es, nil)
	setEmb(t, s, tid(1), embs(2, []float32{1, 1}, []float32{1, 2}))
	setEmb(t, s, tid(2), embs(3, []float32{1, 1, 1})) // another dimension

	// Ensure fills from existing chunks of its dimension only.
	setNative(t, s, true, 2)
	if got := vecKeys(t, s); len(got) != 2 {
		t.Fatalf("vec rows after ensure %v, want the 2 chunks of dimension 2", got)
	}
	setEmb(t, s, tid(2), embs(2, []float32{2, 2}))
	setEmb(t, s, tid(3), embs(2, []float32{3, 3}, []float32{3, 4}))
	setEmb(t, s, tid(1), embs(2, []float32{1, 0}))
	checkVecSync(t, s)
	if err := s.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, nums(3)); return err }); err != nil {
		t.Fatal(err)
	}
	checkVecSync(t, s)

	// Ensure again is a no-op; after a drop, writes no longer maintain it
	// and Ensure rebuilds it.
	setNative(t, s, true, 2)
	checkVecSync(t, s)
	setNative(t, s, false, 0)
	if s.VectorTableDim() != 0 {
		t.Fatal("table remembered after drop")
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'vec_context%' OR name LIKE 'embedding_chunks_vec%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d vector objects left after drop (%v)", n, err)
	}
	setEmb(t, s, tid(4), embs(2, []float32{4, 4}))
	setNative(t, s, true, 2)
	checkVecSync(t, s)

	// Rows lost behind the store's back are restored by Ensure.
	if _, err := s.w.Exec(`DELETE FROM ` + vecTable + ` WHERE rowid = (SELECT max(id) FROM embedding_chunks)`); err != nil {
		t.Fatal(err)
	}
	setNative(t, s, true, 2)
	checkVecSync(t, s)

	// Another dimension recreates the table, with the chunks of that one.
	setEmb(t, s, tid(5), embs(3, []float32{5, 5, 5}))
	setNative(t, s, true, 3)
	if got := vecKeys(t, s); len(got) != 1 || s.VectorTableDim() != 3 {
		t.Fatalf("dimension 3 table holds %v (dim %d)", got, s.VectorTableDim())
	}
	setNative(t, s, true, 2)
	if err := s.EnsureVectorTable(ctx, 0); err == nil {
		t.Fatal("dimension 0 accepted")
	}

	// A reopened store remembers the table and keeps maintaining it.
	s.Close()
	s2 := openFile(t, path)
	if s2.VectorTableDim() != 2 {
		t.Fatalf("reopened store sees dimension %d", s2.VectorTableDim())
	}
	setEmb(t, s2, tid(6), embs(2, []float32{6, 6}))
	if err := s2.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, nums(1)); return err }); err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, d := range vdocs(t, s2, nums(1, 2, 3, 4, 5, 6)...) {
		for _, c := range d.Chunks {
			if len(c.Vector) == 2 {
				want = append(want, int64(c.Key))
			}
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	if got := vecKeys(t, s2); !eqInt64s(got, want) {
		t.Fatalf("vec rows %v, want %v", got, want)
	}

	// A handle that still believes in a dropped table falls back to the
	// exact scan.
	s3 := openFile(t, path)
	if err := s3.DropVectorTable(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := s2.VectorSearch(ctx, alice, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 3, Explain: true})
	if err != nil || len(res.Hits) != 3 || !strings.HasPrefix(res.Plan, "exact scan") {
		t.Fatalf("search after a drop elsewhere: %v %q %v", res.Hits, res.Plan, err)
	}
	if s2.VectorTableDim() != 0 {
		t.Fatal("stale table dimension kept")
	}
}

// TestVectorSearchFilters checks filters, ties and chunk choice on
// filterStore (entries 1..6 of alice).
func TestVectorSearchFilters(t *testing.T) {
	ctx := context.Background()
	s := filterStore(t)
	// Entry n: chunk 0 at (n, 0); entries 5 and 6 also hold a chunk at
	// (0.5, 0) twice (a tie inside the entry), entry 4 none of dimension 2.
	for n := 1; n <= 6; n++ {
		e := embs(2, []float32{float32(n), 0})
		if n >= 5 {
			e = embs(2, []float32{float32(n), 0}, []float32{0.5, 0}, []float32{0.5, 0})
			e.Chunks[1].Start, e.Chunks[1].End = 40, 50
			e.Chunks[2].Start, e.Chunks[2].End = 30, 40
		}
		if n == 4 {
			e = embs(3, []float32{0, 0, 0})
		}
		setEmb(t, s, tid(n), e)
	}
	tp := func(tm time.Time) *time.Time { return &tm }
	type hit struct {
		id    string
		dist  float64
		start int
	}
	tests := []struct {
		name string
		f    persist.Filter
		lim  int
		want []hit
	}{
		{"all", persist.Filter{}, 10, []hit{{tid(5), 0.5, 30}, {tid(6), 0.5, 30}, {tid(1), 1, 0}, {tid(2), 2, 0}, {tid(3), 3, 0}}},
		{"limit ties by id", persist.Filter{}, 1, []hit{{tid(5), 0.5, 30}}},
		{"thread", persist.Filter{ThreadID: "t2"}, 10, []hit{{tid(3), 3, 0}}},
		{"source", persist.Filter{Source: "agent"}, 10, []hit{{tid(2), 2, 0}}},
		{"content type", persist.Filter{ContentType: "text"}, 3, []hit{{tid(5), 0.5, 30}, {tid(6), 0.5, 30}, {tid(1), 1, 0}}},
		{"tags", persist.Filter{Tags: []string{"c"}}, 10, []hit{{tid(5), 0.5, 30}, {tid(3), 3, 0}}},
		{"dates", persist.Filter{Start: tp(at(2)), End: tp(at(5))}, 10, []hit{{tid(5), 0.5, 30}, {tid(2), 2, 0}, {tid(3), 3, 0}}},
		{"ids", persist.Filter{IDs: nums(3, 4, 6)}, 10, []hit{{tid(6), 0.5, 30}, {tid(3), 3, 0}}},
		{"ids empty", persist.Filter{IDs: []string{}}, 10, nil},
		{"before", persist.Filter{Before: &persist.Position{CreatedAt: at(3), ID: tid(3)}}, 10, []hit{{tid(1), 1, 0}, {tid(2), 2, 0}}},
	}
	for _, tc := range tests {
		for _, mode := range searchModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				mode.set(t, s, 2)
				res, err := s.VectorSearch(ctx, alice, persist.VectorQuery{Filter: tc.f, Vector: []float32{0, 0}, Limit: tc.lim, Explain: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []hit
				for _, h := range res.Hits {
					got = append(got, hit{h.ID, h.Distance, h.Start})
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Fatalf("hits %v, want %v", got, tc.want)
				}
				if !strings.Contains(res.Plan, mode.plan) {
					t.Fatalf("plan %q does not name %q", res.Plan, mode.plan)
				}
			})
		}
	}
	t.Run("metadata", func(t *testing.T) {
		insertMeta := entry(7, "t9", "user", "alice")
		insertMeta.Metadata = meta(t, map[string]any{"status": "done"})
		insert(t, s, []persist.Entry{insertMeta}, nil)
		setEmb(t, s, tid(7), embs(2, []float32{9, 9}))
		for _, mode := range searchModes {
			mode.set(t, s, 2)
			res, err := s.VectorSearch(ctx, alice, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 5,
				Filter: persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "done"}}}})
			if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != tid(7) {
				t.Fatalf("%s: %v %v", mode.name, res.Hits, err)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, v := range [][]float32{nil, {float32(math.NaN()), 0}} {
			if _, err := s.VectorSearch(ctx, alice, persist.VectorQuery{Vector: v, Limit: 3}); err == nil {
				t.Fatalf("query vector %v accepted", v)
			}
		}
		res, err := s.VectorSearch(ctx, alice, persist.VectorQuery{Vector: []float32{1, 1}})
		if err != nil || res.Hits == nil || len(res.Hits) != 0 {
			t.Fatalf("limit 0: %v %v", res.Hits, err)
		}
		// Another dimension than the table's: the chunks of that dimension.
		setNative(t, s, true, 2)
		res, err = s.VectorSearch(ctx, alice, persist.VectorQuery{Vector: []float32{0, 0, 0}, Limit: 3})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != tid(4) || res.Hits[0].Distance != 0 {
			t.Fatalf("dimension 3 query: %v %v", res.Hits, err)
		}
	})
}

// searchModes are the strategies of VectorSearch, forced.
var searchModes = []struct {
	name string
	plan string // a phrase of the Plan the strategy writes
	set  func(t *testing.T, s *Store, dim int)
}{
	{"exact", "exact scan", func(t *testing.T, s *Store, dim int) { setNative(t, s, false, 0) }},
	{"knn", "vec0 knn", func(t *testing.T, s *Store, dim int) {
		setNative(t, s, true, dim)
		forceKNN(t)
	}},
}

// forceKNN makes every filtered search use the restricted vec0 KNN for
// the rest of the test.
func forceKNN(t *testing.T) {
	ratio, least := exactScanRatio, minExactScan
	exactScanRatio, minExactScan = math.MaxInt32, 0
	t.Cleanup(func() { exactScanRatio, minExactScan = ratio, least })
}

// TestVectorSearchOracle compares VectorSearch with a brute-force search
// in Go over a few hundred random entries, principals and filters, for
// every strategy.
func TestVectorSearchOracle(t *testing.T) {
	ctx := context.Background()
	const dim = 6
	rng := rand.New(rand.NewPCG(7, 11))
	s := openFile(t, tempDB(t))
	owners := []string{"alice", "bob", "carol"}
	threads := []string{"t0", "t1", "t2", "t3"}
	tagSet := []string{"a", "b", "c", "d"}
	type oentry struct {
		e      persist.Entry
		chunks []persist.ChunkVector
		grants []persist.Grant
	}
	var all []oentry
	grants := map[string][]persist.Grant{}
	var es []persist.Entry
	for n := 1; n <= 300; n++ {
		e := entry(n, threads[rng.IntN(len(threads))], []string{"user", "agent"}[rng.IntN(2)], owners[rng.IntN(len(owners))])
		if rng.IntN(5) == 0 {
			e.Visibility = "public"
		}
		for _, tg := range tagSet {
			if rng.IntN(3) == 0 {
				e.Tags = append(e.Tags, tg)
			}
		}
		if rng.IntN(2) == 0 {
			e.Metadata = meta(t, map[string]any{"n": n % 10})
		}
		if rng.IntN(6) == 0 {
			g := persist.Grant{PrincipalType: "user", PrincipalID: owners[rng.IntN(3)], Permission: "read", GrantedBy: e.Owner}
			if rng.IntN(2) == 0 {
				g = persist.Grant{PrincipalType: "group", PrincipalID: "team", Permission: "write", GrantedBy: e.Owner}
			}
			grants[e.ID] = []persist.Grant{g}
		}
		es = append(es, e)
		var vs [][]float32
		if n%37 != 0 { // a few entries without vectors
			for c := 0; c < 1+rng.IntN(4); c++ {
				v := make([]float32, dim)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				vs = append(vs, v)
			}
		}
		if n%50 == 0 && len(all[len(all)-1].chunks) > 0 { // exact duplicates: ties across entries
			vs = append(vs, all[len(all)-1].chunks[0].Vector)
		}
		all = append(all, oentry{e: e, chunks: embs(dim, vs...).Chunks, grants: grants[e.ID]})
	}
	insert(t, s, es, grants)
	for _, o := range all {
		if len(o.chunks) > 0 {
			setEmb(t, s, o.e.ID, persist.Embeddings{Model: "m", Dim: dim, Chunks: o.chunks})
		}
	}

	readable := func(acc persist.Access, o oentry) bool {
		if o.e.Owner == acc.Principal || o.e.Visibility == "public" {
			return true
		}
		for _, g := range o.grants {
			if g.PrincipalType == "user" && g.PrincipalID == acc.Principal ||
				g.PrincipalType == "group" && contains(acc.Groups, g.PrincipalID) {
				return true
			}
		}
		return false
	}
	matches := func(f persist.Filter, o oentry) bool {
		e := o.e
		if f.ThreadID != "" && e.ThreadID != f.ThreadID || f.Source != "" && e.Source != f.Source {
			return false
		}
		if len(f.Tags) > 0 {
			hit := false
			for _, tg := range f.Tags {
				hit = hit || contains(e.Tags, tg)
			}
			if !hit {
				return false
			}
		}
		if f.Start != nil && e.CreatedAt.Before(*f.Start) || f.End != nil && e.CreatedAt.After(*f.End) {
			return false
		}
		if f.IDs != nil && !contains(f.IDs, e.ID) {
			return false
		}
		if len(f.Meta) > 0 && string(e.Metadata) != string(meta(t, map[string]any{"n": f.Meta[0].Value})) {
			return false
		}
		return true
	}
	// oracle returns every matching readable entry with its best distance,
	// nearest first.
	oracle := func(acc persist.Access, q persist.VectorQuery) []persist.VectorHit {
		var out []persist.VectorHit
		for _, o := range all {
			if len(o.chunks) == 0 || !readable(acc, o) || !matches(q.Filter, o) {
				continue
			}
			best := persist.VectorHit{ID: o.e.ID, Distance: math.Inf(1)}
			for _, c := range o.chunks {
				var sum float64
				for i := range c.Vector {
					d := float64(c.Vector[i]) - float64(q.Vector[i])
					sum += d * d
				}
				if d := math.Sqrt(sum); d < best.Distance || d == best.Distance && c.Start < best.Start {
					best.Distance, best.Chunk, best.Start, best.End = d, c.Index, c.Start, c.End
				}
			}
			out = append(out, best)
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Distance != out[j].Distance {
				return out[i].Distance < out[j].Distance
			}
			return out[i].ID < out[j].ID
		})
		return out
	}

	accs := []persist.Access{alice, bob, {Principal: "carol", Groups: []string{"team"}}, {Principal: "nobody"}}
	type query struct {
		acc persist.Access
		q   persist.VectorQuery
	}
	var queries []query
	for i := 0; i < 120; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		if i%20 == 0 { // exactly on a stored vector
			for o := all[rng.IntN(len(all))]; len(o.chunks) > 0; {
				v = o.chunks[0].Vector
				break
			}
		}
		var f persist.Filter
		switch rng.IntN(8) {
		case 0:
			f.ThreadID = threads[rng.IntN(len(threads))]
		case 1:
			f.Source = "agent"
			f.Tags = []string{tagSet[rng.IntN(4)]}
		case 2:
			st, en := at(rng.IntN(300)), at(rng.IntN(300))
			if en.Before(st) {
				st, en = en, st
			}
			f.Start, f.End = &st, &en
		case 3:
			for k := 0; k < 40; k++ {
				f.IDs = append(f.IDs, tid(1+rng.IntN(320)))
			}
		case 4:
			f.Meta = []persist.MetaCond{{Path: []string{"n"}, Op: "eq", Value: int64(rng.IntN(10))}}
		}
		queries = append(queries, query{accs[rng.IntN(len(accs))], persist.VectorQuery{Filter: f, Vector: v, Limit: 1 + rng.IntN(30), Explain: true}})
	}

	const tol = 1e-5
	modes := []struct {
		name string
		set  func(t *testing.T)
	}{
		{"exact", func(t *testing.T) { setNative(t, s, false, 0) }},
		{"default", func(t *testing.T) { setNative(t, s, true, dim) }},
		{"knn", func(t *testing.T) { setNative(t, s, true, dim); forceKNN(t) }},
	}
	results := map[string][]persist.VectorResult{}
	strategies := map[string]int{}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			mode.set(t)
			for qi, qq := range queries {
				res, err := s.VectorSearch(ctx, qq.acc, qq.q)
				if err != nil {
					t.Fatalf("query %d: %v", qi, err)
				}
				results[mode.name] = append(results[mode.name], res)
				strategy, _, _ := strings.Cut(res.Plan, "\n")
				strategy = regexp.MustCompile(`k=\d+`).ReplaceAllString(strategy, "k=N")
				strategies[mode.name+": "+strategy]++
				want := oracle(qq.acc, qq.q)
				best := map[string]persist.VectorHit{}
				for _, h := range want {
					best[h.ID] = h
				}
				if n := min(len(want), qq.q.Limit); len(res.Hits) != n {
					t.Fatalf("query %d (%+v): %d hits, want %d", qi, qq.q.Filter, len(res.Hits), n)
				}
				seen := map[string]bool{}
				for i, h := range res.Hits {
					w, ok := best[h.ID]
					switch {
					case !ok:
						t.Fatalf("query %d: hit %s is not readable or does not match", qi, h.ID)
					case seen[h.ID]:
						t.Fatalf("query %d: hit %s twice", qi, h.ID)
					case math.Abs(h.Distance-want[i].Distance) > tol:
						t.Fatalf("query %d rank %d: distance %v, oracle %v", qi, i, h.Distance, want[i].Distance)
					case math.Abs(h.Distance-w.Distance) > tol:
						t.Fatalf("query %d: %s at %v, its best chunk is at %v", qi, h.ID, h.Distance, w.Distance)
					case math.Abs(w.Distance-h.Distance) <= tol && w.Start != h.Start && w.Distance != 0:
						t.Fatalf("query %d: %s best chunk starts at %d, oracle %d", qi, h.ID, h.Start, w.Start)
					}
					if i > 0 {
						p := res.Hits[i-1]
						if h.Distance < p.Distance || h.Distance == p.Distance && h.ID < p.ID {
							t.Fatalf("query %d: hits out of order at %d", qi, i)
						}
					}
					seen[h.ID] = true
				}
			}
		})
	}
	// Every strategy answered some queries.
	for _, k := range []string{"exact: exact scan (vec_distance_l2)", "default: exact scan (vec_distance_l2)",
		"default: vec0 knn k=N, then access", "knn: vec0 knn k=N, then access", "knn: vec0 knn k=N over filtered candidates"} {
		if strategies[k] == 0 {
			t.Errorf("no query answered by %q: %v", k, strategies)
		}
	}
	t.Logf("strategies: %v", strategies)
	// Every strategy computes the same distances: identical answers.
	for _, m := range []string{"default", "knn"} {
		for qi := range queries {
			if fmt.Sprint(results[m][qi].Hits) != fmt.Sprint(results["exact"][qi].Hits) {
				t.Fatalf("query %d: %s %v, exact %v", qi, m, results[m][qi].Hits, results["exact"][qi].Hits)
			}
		}
	}
}

// TestVectorSearchKNNGrowth makes entries with many chunks near the query
// so that the first k cannot prove the answer.
func TestVectorSearchKNNGrowth(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	var es []persist.Entry
	for n := 1; n <= 40; n++ {
		es = append(es, entry(n, "t", "user", "alice"))
	}
	es[39].Owner = "bob" // the farthest entry is bob's
	insert(t, s, es, nil)
	for n := 1; n <= 40; n++ {
		var vs [][]float32
		for c := 0; c < 30; c++ {
			vs = append(vs, []float32{float32(n) + float32(c)/100, 0})
		}
		setEmb(t, s, tid(n), embs(2, vs...))
	}
	setNative(t, s, true, 2)
	for _, acc := range []persist.Access{alice, bob} {
		res, err := s.VectorSearch(ctx, acc, persist.VectorQuery{Vector: []float32{0, 0}, Limit: 5, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		want := nums(1, 2, 3, 4, 5)
		if acc.Principal == "bob" {
			want = nums(40)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if !eqStrings(got, want) {
			t.Fatalf("%s: hits %v, want %v (plan %q)", acc.Principal, got, want, res.Plan)
		}
		if res.Hits[0].Start != 0 {
			t.Fatalf("%s: best chunk starts at %d", acc.Principal, res.Hits[0].Start)
		}
	}
}

// TestVectorSearchKNNFallback needs more chunks than sqlite-vec's largest
// k to prove the answer: the exact scan answers.
func TestVectorSearchKNNFallback(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice"), entry(2, "t", "user", "alice"), entry(3, "t", "user", "alice")}, nil)
	for n := 1; n <= 3; n++ {
		var vs [][]float32
		for c := 0; c < 2100; c++ {
			vs = append(vs, []float32{float32(n), float32(c) / 10000})
		}
		setEmb(t, s, tid(n), embs(2, vs...))
	}
	setNative(t, s, true, 2)
	forceKNN(t)
	for _, f := range []persist.Filter{{}, {ThreadID: "t"}} {
		res, err := s.VectorSearch(ctx, alice, persist.VectorQuery{Filter: f, Vector: []float32{0, 0}, Limit: 3, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if !eqStrings(got, nums(1, 2, 3)) || !strings.HasPrefix(res.Plan, "exact scan") {
			t.Fatalf("filter %+v: hits %v, plan %q", f, got, res.Plan)
		}
		// Two entries fit in k = 4096 chunks.
		res, err = s.VectorSearch(ctx, alice, persist.VectorQuery{Filter: f, Vector: []float32{0, 0}, Limit: 1, Explain: true})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != tid(1) || !strings.HasPrefix(res.Plan, "vec0 knn") {
			t.Fatalf("filter %+v limit 1: %v %q %v", f, res.Hits, res.Plan, err)
		}
	}
}
