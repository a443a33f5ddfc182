package persisttest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist"
)

func (s suite) vectors(t *testing.T) {
	t.Run("RoundTrip", s.vectorsRoundTrip)
	t.Run("AddEmbeddings", s.vectorsAdd)
	t.Run("KeysNeverReused", s.vectorsKeysNeverReused)
	t.Run("Rejected", s.vectorsRejected)
	t.Run("EmbeddingModel", s.vectorsModel)
}

func vdocs(t testing.TB, st persist.Store, ids ...string) []persist.VectorDoc {
	t.Helper()
	docs, err := st.VectorDocs(context.Background(), ids)
	if err != nil {
		t.Fatalf("vector docs: %v", err)
	}
	return docs
}

func docIDs(docs []persist.VectorDoc) []string {
	return mapped(docs, func(d persist.VectorDoc) string { return d.ID })
}

func (s suite) vectorsRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice"), NewEntry(3, "t", "user", "alice")}, nil)
	if n, err := st.EmbeddingBytes(ctx); err != nil || n != 0 && n != -1 {
		t.Fatalf("EmbeddingBytes without vectors = %d, %v", n, err)
	}
	SetEmbeddings(t, st, ID(3), Embeddings(3, []float32{1, 2, 3}))
	two := Embeddings(3, []float32{0.5, -1, 2}, []float32{math.MaxFloat32, -0, 1e-30})
	SetEmbeddings(t, st, ID(1), two)

	docs := vdocs(t, st, ID(3), ID(2), ID(1), ID(99))
	if !slices.Equal(docIDs(docs), IDs(1, 3)) {
		t.Fatalf("docs %v, want entries 1 and 3", docIDs(docs))
	}
	d1 := docs[0]
	if len(d1.Chunks) != 2 {
		t.Fatalf("entry 1 has %d chunks, want 2", len(d1.Chunks))
	}
	for i, c := range d1.Chunks {
		want := two.Chunks[i]
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
		{"", 1, IDs(1)},
		{"", 0, IDs(1, 3)},
		{"", 10, IDs(1, 3)},
		{ID(1), 10, IDs(3)},
		{ID(3), 10, nil},
	}
	for _, sc := range scans {
		got, err := st.ScanVectorDocs(ctx, sc.after, sc.limit)
		if err != nil {
			t.Fatalf("scan after %q: %v", sc.after, err)
		}
		if !slices.Equal(docIDs(got), sc.want) {
			t.Fatalf("scan after %q limit %d = %v, want %v", sc.after, sc.limit, docIDs(got), sc.want)
		}
		if len(got) > 0 && len(got[0].Chunks) == 0 {
			t.Fatalf("scan returned a doc without chunks")
		}
	}

	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for _, c := range []struct {
			id   string
			want bool
		}{{ID(1), true}, {ID(2), false}, {ID(99), false}} {
			has, err := tx.HasEmbeddings(ctx, c.id)
			if err != nil || has != c.want {
				return fmt.Errorf("HasEmbeddings(%s) = %v, %v; want %v", c.id, has, err, c.want)
			}
		}
		return nil
	})
	if n, err := st.EmbeddingBytes(ctx); err != nil || n != -1 && n <= 0 {
		t.Fatalf("EmbeddingBytes = %d, %v; want a size or -1", n, err)
	}
	ents, chunks, err := st.EmbeddingCounts(ctx, alice)
	if err != nil || ents != 2 || chunks != 3 {
		t.Fatalf("EmbeddingCounts = %d, %d, %v; want 2, 3", ents, chunks, err)
	}
	// A transaction sees its own vectors.
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		if err := tx.SetEmbeddings(ctx, ID(2), Embeddings(3, []float32{9, 9, 9})); err != nil {
			return err
		}
		has, err := tx.HasEmbeddings(ctx, ID(2))
		if err != nil || !has {
			return fmt.Errorf("HasEmbeddings inside the write = %v, %v", has, err)
		}
		if err := tx.SetEmbeddings(ctx, ID(2), persist.Embeddings{}); err != nil {
			return err
		}
		if has, err := tx.HasEmbeddings(ctx, ID(2)); err != nil || has {
			return fmt.Errorf("HasEmbeddings inside the write after clearing = %v, %v", has, err)
		}
		return nil
	})
	// SetEmbeddings writes no change-log row.
	chs := changes(t, st)
	if len(chs) != 3 {
		t.Fatalf("change log %v, want the 3 inserts only", chs)
	}
	for _, c := range chs {
		if c.Op != persist.OpInsert {
			t.Fatalf("change log %v, want the 3 inserts only", chs)
		}
	}
	// Vectors are read whoever owns the entry; counts are not.
	Insert(t, st, []persist.Entry{NewEntry(4, "t", "user", "bob")}, nil)
	SetEmbeddings(t, st, ID(4), Embeddings(3, []float32{4, 4, 4}))
	if got := vdocs(t, st, ID(4)); !slices.Equal(docIDs(got), IDs(4)) {
		t.Fatalf("vector docs of bob's entry = %v", docIDs(got))
	}
	if ents, chunks, _ := st.EmbeddingCounts(ctx, alice); ents != 2 || chunks != 3 {
		t.Fatalf("alice counts bob's vectors: %d, %d", ents, chunks)
	}
}

// vectorsAdd: AddEmbeddings stores the vectors of an entry inserted in the
// same transaction; no chunks is a no-op.
func (s suite) vectorsAdd(t *testing.T) {
	st := s.store(t)
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for n := 1; n <= 2; n++ {
			e := NewEntry(n, "t", "user", "alice")
			if err := tx.Insert(ctx, &e, nil); err != nil {
				return err
			}
		}
		if err := tx.AddEmbeddings(ctx, ID(1), Embeddings(2, []float32{1, 2}, []float32{3, 4})); err != nil {
			return err
		}
		return tx.AddEmbeddings(ctx, ID(2), persist.Embeddings{Model: "m", Dim: 2})
	})
	docs := vdocs(t, st, IDs(1, 2)...)
	if !slices.Equal(docIDs(docs), IDs(1)) || len(docs[0].Chunks) != 2 || docs[0].Chunks[1].Vector[1] != 4 {
		t.Fatalf("docs = %+v", docs)
	}
	if err := st.Write(context.Background(), func(tx persist.Tx) error {
		e := NewEntry(3, "t", "user", "alice")
		if err := tx.Insert(context.Background(), &e, nil); err != nil {
			return err
		}
		return tx.AddEmbeddings(context.Background(), ID(3), Embeddings(2, []float32{float32(math.NaN()), 0}))
	}); err == nil {
		t.Fatal("a NaN vector was added")
	}
	if _, found, _ := st.State(context.Background(), alice, ID(3)); found {
		t.Fatal("the entry of a refused vector was kept")
	}
}

// vectorsKeysNeverReused: chunk keys only grow and never come back, not
// after a replace, a clear or a delete of the newest chunks.
func (s suite) vectorsKeysNeverReused(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice")}, nil)
	seen := map[uint64]bool{}
	fresh := func(id string, wantChunks int) []persist.KeyedChunk {
		t.Helper()
		ds := vdocs(t, st, id)
		if len(ds) != 1 || len(ds[0].Chunks) != wantChunks {
			t.Fatalf("vector docs of %s = %+v, want %d chunks", id, ds, wantChunks)
		}
		for _, c := range ds[0].Chunks {
			if seen[c.Key] {
				t.Fatalf("chunk key %d reused", c.Key)
			}
			seen[c.Key] = true
		}
		return ds[0].Chunks
	}
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{1, 0}, []float32{0, 1}))
	SetEmbeddings(t, st, ID(2), Embeddings(2, []float32{1, 1}))
	old := fresh(ID(1), 2)
	fresh(ID(2), 1)

	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{2, 2}, []float32{3, 3}, []float32{4, 4}))
	d := fresh(ID(1), 3)
	if d[2].Vector[0] != 4 {
		t.Fatalf("after replace: %+v", d)
	}
	for _, c := range d {
		for _, o := range old {
			if c.Key <= o.Key {
				t.Fatalf("key %d reused or not increasing (old %d)", c.Key, o.Key)
			}
		}
	}
	if ents, chunks, _ := st.EmbeddingCounts(ctx, alice); ents != 2 || chunks != 4 {
		t.Fatalf("counts after replace = %d, %d", ents, chunks)
	}
	// Clear the newest chunks, then store again: new keys.
	SetEmbeddings(t, st, ID(1), persist.Embeddings{})
	if got := vdocs(t, st, ID(1), ID(2)); !slices.Equal(docIDs(got), IDs(2)) {
		t.Fatalf("after clearing: %v", docIDs(got))
	}
	if ents, chunks, _ := st.EmbeddingCounts(ctx, alice); ents != 1 || chunks != 1 {
		t.Fatalf("counts after clearing = %d, %d", ents, chunks)
	}
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{5, 5}))
	fresh(ID(1), 1)
	// Delete every entry, then store new ones: new keys.
	deleteIDs(t, st, IDs(1, 2)...)
	if got, err := st.ScanVectorDocs(ctx, "", 0); err != nil || len(got) != 0 {
		t.Fatalf("vector docs after delete: %v, %v", got, err)
	}
	if n, _ := st.EmbeddingBytes(ctx); n != 0 && n != -1 {
		t.Fatalf("bytes after delete = %d", n)
	}
	if ents, chunks, _ := st.EmbeddingCounts(ctx, alice); ents != 0 || chunks != 0 {
		t.Fatalf("counts after delete = %d, %d", ents, chunks)
	}
	Insert(t, st, []persist.Entry{NewEntry(3, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(3), Embeddings(2, []float32{6, 6}, []float32{7, 7}))
	fresh(ID(3), 2)
}

// vectorsRejected: invalid vectors are refused before anything changes,
// and a refused vector rolls back the whole write.
func (s suite) vectorsRejected(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{1, 2}))
	before := vdocs(t, st, ID(1))
	for name, tc := range BadEmbeddings() {
		t.Run(name, func(t *testing.T) {
			err := st.Write(ctx, func(tx persist.Tx) error { return tx.SetEmbeddings(ctx, tc.ID, tc.Embeddings) })
			if err == nil {
				t.Fatalf("embeddings accepted")
			}
			if after := vdocs(t, st, ID(1), ID(9)); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("data changed: %v, was %v", after, before)
			}
		})
	}
	// A bad vector later in the same transaction rolls the good one back.
	nan := float32(math.NaN())
	err := st.Write(ctx, func(tx persist.Tx) error {
		if err := tx.SetEmbeddings(ctx, ID(1), Embeddings(2, []float32{7, 7})); err != nil {
			return err
		}
		return tx.SetEmbeddings(ctx, ID(1), Embeddings(2, []float32{nan, 7}))
	})
	if err == nil {
		t.Fatal("bad vector accepted")
	}
	if after := vdocs(t, st, ID(1)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("rolled-back write changed data: %v", after)
	}
	// Clearing the vectors of a missing entry is a no-op.
	SetEmbeddings(t, st, ID(9), persist.Embeddings{})
}

// BadEmbedding is a SetEmbeddings call every store refuses (ID(1) exists
// with vectors of dimension 2, ID(9) does not exist).
type BadEmbedding struct {
	ID         string
	Embeddings persist.Embeddings
}

// BadEmbeddings are the refused SetEmbeddings calls of the suite, by name;
// a backend's own test may check the text of its errors.
func BadEmbeddings() map[string]BadEmbedding {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	return map[string]BadEmbedding{
		"zero dim":       {ID(1), persist.Embeddings{Chunks: []persist.ChunkVector{{Vector: []float32{}}}}},
		"negative dim":   {ID(1), persist.Embeddings{Dim: -1, Chunks: []persist.ChunkVector{{Vector: []float32{1}}}}},
		"short vector":   {ID(1), Embeddings(2, []float32{1, 2}, []float32{1})},
		"long vector":    {ID(1), Embeddings(2, []float32{1, 2, 3})},
		"nil vector":     {ID(1), Embeddings(2, nil)},
		"nan":            {ID(1), Embeddings(2, []float32{1, 2}, []float32{nan, 0})},
		"inf":            {ID(1), Embeddings(2, []float32{-inf, 0})},
		"bad span":       {ID(1), persist.Embeddings{Dim: 1, Chunks: []persist.ChunkVector{{Start: 5, End: 4, Vector: []float32{1}}}}},
		"negative start": {ID(1), persist.Embeddings{Dim: 1, Chunks: []persist.ChunkVector{{Start: -1, End: 4, Vector: []float32{1}}}}},
		"no entry":       {ID(9), Embeddings(2, []float32{1, 2})},
	}
}

func (s suite) vectorsModel(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	if _, ok, err := st.EmbeddingModel(ctx); ok || err != nil {
		t.Fatalf("fresh store: ok %v err %v", ok, err)
	}
	for _, m := range []persist.EmbeddingModel{{Model: "a", Dim: 3}, {Model: "b", Dim: 768}} {
		if err := st.SetEmbeddingModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		got, ok, err := st.EmbeddingModel(ctx)
		if err != nil || !ok || got != m {
			t.Fatalf("EmbeddingModel = %+v %v %v, want %+v", got, ok, err, m)
		}
	}
	if err := st.SetEmbeddingModel(ctx, persist.EmbeddingModel{Model: "c"}); err == nil {
		t.Fatal("dimension 0 accepted")
	}
	if got, ok, err := st.EmbeddingModel(ctx); err != nil || !ok || got != (persist.EmbeddingModel{Model: "b", Dim: 768}) {
		t.Fatalf("a refused model replaced the recorded one: %+v %v %v", got, ok, err)
	}
}
