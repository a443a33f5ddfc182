package sqlite

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

func vdocs(t testing.TB, s *Store, ids ...string) []persist.VectorDoc {
	t.Helper()
	docs, err := s.VectorDocs(context.Background(), ids)
	if err != nil {
		t.Fatalf("vector docs: %v", err)
	}
	return docs
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

// checkVecSync fails unless the sqlite-vec table holds exactly the chunks.
func checkVecSync(t testing.TB, s *Store) {
	t.Helper()
	if got, want := vecKeys(t, s), chunkKeys(t, s); !slices.Equal(got, want) {
		t.Fatalf("vec0 rows %v, chunk rows %v", got, want)
	}
}

// TestEmbeddingsSQL: the rows behind the vectors of the suite's round trip:
// little-endian float32 blobs whose lengths EmbeddingBytes sums, one
// embedding_metadata row per entry, and the transaction's own reads.
func TestEmbeddingsSQL(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice"), entry(2, "t", "user", "alice"), entry(3, "t", "user", "alice")}, nil)
	setEmb(t, s, tid(3), embs(3, []float32{1, 2, 3}))
	setEmb(t, s, tid(1), embs(3, []float32{0.5, -1, 2}, []float32{math.MaxFloat32, -0, 1e-30}))
	n, err := s.EmbeddingBytes(ctx)
	if err != nil || n != 3*3*4 {
		t.Fatalf("EmbeddingBytes = %d, %v; want 36", n, err)
	}
	var blobs int64
	if err := s.r.QueryRow(`SELECT sum(length(embedding)) FROM embedding_chunks`).Scan(&blobs); err != nil || blobs != n {
		t.Fatalf("blob bytes %d (%v), EmbeddingBytes %d", blobs, err, n)
	}
	var model string
	var dims, chunks int
	if err := s.r.QueryRow(`SELECT model_name, dimensions, chunk_count FROM embedding_metadata WHERE context_id = ?`, tid(1)).
		Scan(&model, &dims, &chunks); err != nil || model != "test-model" || dims != 3 || chunks != 2 {
		t.Fatalf("metadata = %q %d %d (%v)", model, dims, chunks, err)
	}
	// A transaction reads its own vectors.
	err = s.Write(ctx, func(ptx persist.Tx) error {
		x := ptx.(*tx)
		if err := x.SetEmbeddings(ctx, tid(2), embs(3, []float32{9, 9, 9})); err != nil {
			return err
		}
		if d, err := x.VectorDocs(ctx, nums(2)); err != nil || len(d) != 1 {
			return fmt.Errorf("VectorDocs inside the write = %v, %v", d, err)
		}
		return x.SetEmbeddings(ctx, tid(2), persist.Embeddings{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := count(t, s, "embedding_metadata", ""); c != 2 {
		t.Fatalf("embedding_metadata rows = %d, want 2", c)
	}
}

// TestEmbeddingsRejected: what the suite's refused embeddings say, and the
// sqlite-vec table untouched by them.
func TestEmbeddingsRejected(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	setNative(t, s, true, 2)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	setEmb(t, s, tid(1), embs(2, []float32{1, 2}))
	want := map[string]string{
		"zero dim":       "dimension 0",
		"negative dim":   "dimension -1",
		"short vector":   "chunk 1: vector has 1 dimensions",
		"long vector":    "chunk 0: vector has 3 dimensions",
		"nil vector":     "neither a vector nor a code",
		"nan":            "chunk 1: value 0 is not a finite number",
		"inf":            "not a finite number",
		"bad span":       "bad span",
		"negative start": "bad span",
		"no entry":       "no entry",
	}
	bad := persisttest.BadEmbeddings()
	if len(bad) != len(want) {
		t.Fatalf("%d refused embeddings, %d error texts", len(bad), len(want))
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			err := s.Write(ctx, func(tx persist.Tx) error { return tx.SetEmbeddings(ctx, tc.ID, tc.Embeddings) })
			if err == nil || !strings.Contains(err.Error(), want[name]) {
				t.Fatalf("error %v, want one containing %q", err, want[name])
			}
			checkVecSync(t, s)
		})
	}
	// A bad vector later in the same transaction rolls the good one back.
	err := s.Write(ctx, func(tx persist.Tx) error {
		if err := tx.SetEmbeddings(ctx, tid(1), embs(2, []float32{7, 7})); err != nil {
			return err
		}
		return tx.SetEmbeddings(ctx, tid(1), embs(2, []float32{float32(math.NaN()), 7}))
	})
	if err == nil {
		t.Fatal("bad vector accepted")
	}
	checkVecSync(t, s)
	if got := vdocs(t, s, tid(1)); len(got) != 1 || got[0].Chunks[0].Vector[0] != 1 {
		t.Fatalf("rolled-back write changed data: %v", got)
	}
}

// TestEmbeddingModelOneRow: the model is one row, replaced in place.
func TestEmbeddingModelOneRow(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	for _, m := range []persist.EmbeddingModel{{Model: "a", Dim: 3}, {Model: "b", Dim: 768}} {
		if err := s.SetEmbeddingModel(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := s.r.QueryRow(`SELECT count(*) FROM embedding_model`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("embedding_model rows %d (%v)", rows, err)
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
	if got := vecKeys(t, s2); !slices.Equal(got, want) {
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

// forceKNN makes every filtered search use the restricted vec0 KNN for
// the rest of the test.
func forceKNN(t *testing.T) {
	ratio, least := exactScanRatio, minExactScan
	exactScanRatio, minExactScan = math.MaxInt32, 0
	t.Cleanup(func() { exactScanRatio, minExactScan = ratio, least })
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
		if !slices.Equal(got, nums(1, 2, 3)) || !strings.HasPrefix(res.Plan, "exact scan") {
			t.Fatalf("filter %+v: hits %v, plan %q", f, got, res.Plan)
		}
		// Two entries fit in k = 4096 chunks.
		res, err = s.VectorSearch(ctx, alice, persist.VectorQuery{Filter: f, Vector: []float32{0, 0}, Limit: 1, Explain: true})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != tid(1) || !strings.HasPrefix(res.Plan, "vec0 knn") {
			t.Fatalf("filter %+v limit 1: %v %q %v", f, res.Hits, res.Plan, err)
		}
	}
}
