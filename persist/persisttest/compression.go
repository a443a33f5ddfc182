package persisttest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// The compressed storage of chunk vectors (C.14): a chunk holds its float32
// vector, its code or both, exactly as written; compression_metadata is a
// singleton; RewriteChunks converts chunks between the forms in place.

func (s suite) compression(t *testing.T) {
	t.Run("Forms_C14", s.compressionForms)
	t.Run("Rewrite_C14", s.compressionRewrite)
	t.Run("Metadata_C14", s.compressionMetadata)
}

// vectorSearchCodeOnly: native search (float32) leaves code-only chunks
// out, whether they were stored before or after the table was made.
func (s suite) vectorSearchCodeOnly(t *testing.T) {
	st, nv := s.vectorStore(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice"), NewEntry(3, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(1), persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Code: code(1)}}})
	ensure(t, nv, 2)
	SetEmbeddings(t, st, ID(2), Embeddings(2, []float32{1, 0}))
	SetEmbeddings(t, st, ID(3), persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Code: code(3)}}})
	hits := vectorSearch(t, nv, alice, persist.VectorQuery{Vector: []float32{1, 0}, Limit: 10})
	if !slices.Equal(vecHitIDs(hits), IDs(2)) {
		t.Fatalf("native hits %v, want only the float32 entry 2", vecHitIDs(hits))
	}
}

// code is a fake code of chunk n: the store keeps codes as opaque bytes.
func code(n int) []byte { return []byte(fmt.Sprintf("TQP1-code-%d", n)) }

// forms counts the chunks by form, and checks that HasCodes agrees.
func forms(t testing.TB, st persist.Store) persist.VectorForms {
	t.Helper()
	f, err := st.VectorForms(context.Background())
	if err != nil {
		t.Fatalf("vector forms: %v", err)
	}
	if has, err := st.HasCodes(context.Background()); err != nil || has != (f.Code > 0) {
		t.Fatalf("HasCodes = %v, %v with %d coded chunks", has, err, f.Code)
	}
	if has, err := st.HasUncoded(context.Background()); err != nil || has != (f.Code < f.Chunks) {
		t.Fatalf("HasUncoded = %v, %v with %d coded chunks of %d", has, err, f.Code, f.Chunks)
	}
	return f
}

// compressionForms: code-only, float-only and both-forms chunks round-trip
// as written and are counted by form.
func (s suite) compressionForms(t *testing.T) {
	st := s.store(t)
	if f := forms(t, st); f != (persist.VectorForms{}) {
		t.Fatalf("forms of an empty store = %+v", f)
	}
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice")}, nil)
	mixed := persist.Embeddings{Model: "m", Dim: 2, Chunks: []persist.ChunkVector{
		{Index: 0, Start: 0, End: 5, Code: code(0)},
		{Index: 1, Start: 5, End: 9, Vector: []float32{1, 2}, Code: code(1)},
		{Index: 2, Start: 9, End: 12, Vector: []float32{3, 4}},
	}}
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		return tx.AddEmbeddings(ctx, ID(1), mixed)
	})
	SetEmbeddings(t, st, ID(2), persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Code: code(7)}}})
	docs := vdocs(t, st, IDs(1, 2)...)
	if !slices.Equal(docIDs(docs), IDs(1, 2)) || len(docs[0].Chunks) != 3 {
		t.Fatalf("docs = %+v", docs)
	}
	for i, c := range docs[0].Chunks {
		want := mixed.Chunks[i]
		if fmt.Sprint(c.Vector) != fmt.Sprint(want.Vector) || string(c.Code) != string(want.Code) ||
			(want.Vector == nil) != (c.Vector == nil) || (want.Code == nil) != (c.Code == nil) {
			t.Fatalf("chunk %d = vector %v code %q, want %v %q", i, c.Vector, c.Code, want.Vector, want.Code)
		}
	}
	want := persist.VectorForms{Chunks: 4, Float: 2, Code: 3,
		CodeBytes: int64(len(code(0)) + len(code(1)) + len(code(7)))}
	if f := forms(t, st); f != want {
		t.Fatalf("forms = %+v, want %+v", f, want)
	}
	if ents, chunks, err := st.EmbeddingCounts(context.Background(), alice); err != nil || ents != 2 || chunks != 4 {
		t.Fatalf("EmbeddingCounts = %d, %d, %v; want 2, 4", ents, chunks, err)
	}
	// A chunk with neither form is refused and the write rolls back.
	err := st.Write(context.Background(), func(tx persist.Tx) error {
		return tx.SetEmbeddings(context.Background(), ID(2), persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Index: 0}}})
	})
	if err == nil {
		t.Fatal("a chunk without vector or code was stored")
	}
	if f := forms(t, st); f != want {
		t.Fatalf("a refused write changed the forms: %+v", f)
	}
	deleteIDs(t, st, ID(1))
	if f := forms(t, st); f != (persist.VectorForms{Chunks: 1, Code: 1, CodeBytes: int64(len(code(7)))}) {
		t.Fatalf("forms after delete = %+v", f)
	}
}

// compressionRewrite: RewriteChunks swaps forms keeping keys and spans,
// appends no change-log row, and a bad form rolls the whole call back.
func (s suite) compressionRewrite(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(1), Embeddings(2, []float32{1, 2}, []float32{3, 4}))
	before := vdocs(t, st, ID(1))[0].Chunks
	logged := len(changes(t, st))
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		return tx.RewriteChunks(ctx, []persist.ChunkForm{
			{Key: before[0].Key, Code: code(0)},
			{Key: before[1].Key, Vector: []float32{3, 4}, Code: code(1)},
		})
	})
	after := vdocs(t, st, ID(1))[0].Chunks
	if len(after) != 2 || after[0].Key != before[0].Key || after[1].Key != before[1].Key ||
		after[0].Start != before[0].Start || after[1].End != before[1].End {
		t.Fatalf("rewrite moved chunks: %+v, was %+v", after, before)
	}
	if after[0].Vector != nil || string(after[0].Code) != string(code(0)) || after[1].Vector[1] != 4 || string(after[1].Code) != string(code(1)) {
		t.Fatalf("rewritten chunks = %+v", after)
	}
	if n := len(changes(t, st)); n != logged {
		t.Fatalf("RewriteChunks appended %d change-log rows", n-logged)
	}
	if f := forms(t, st); f.Chunks != 2 || f.Float != 1 || f.Code != 2 {
		t.Fatalf("forms after rewrite = %+v", f)
	}
	for name, bad := range map[string]persist.ChunkForm{
		"no chunk":     {Key: before[1].Key + 1000, Code: code(9)},
		"neither form": {Key: before[0].Key},
		"wrong dim":    {Key: before[0].Key, Vector: []float32{1, 2, 3}},
	} {
		err := st.Write(ctx, func(tx persist.Tx) error {
			if err := tx.RewriteChunks(ctx, []persist.ChunkForm{{Key: before[1].Key, Vector: []float32{9, 9}}}); err != nil {
				return err
			}
			return tx.RewriteChunks(ctx, []persist.ChunkForm{bad})
		})
		if err == nil {
			t.Fatalf("%s: rewrite accepted", name)
		}
		if got := vdocs(t, st, ID(1))[0].Chunks; fmt.Sprint(got) != fmt.Sprint(after) {
			t.Fatalf("%s: refused rewrite changed data: %+v", name, got)
		}
	}
}

// compressionMetadata: the singleton round-trips, is replaced, removed by
// nil, and a bad record changes nothing.
func (s suite) compressionMetadata(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	if _, ok, err := st.Compression(ctx); ok || err != nil {
		t.Fatalf("fresh store: ok %v err %v", ok, err)
	}
	set := func(c *persist.Compression) error {
		return st.Write(ctx, func(tx persist.Tx) error { return tx.SetCompression(ctx, c) })
	}
	at := time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC)
	for _, c := range []persist.Compression{
		{Provider: "turboquant", Bits: 4, Variant: "mse", Seed: 0, Dim: 100, Fingerprint: "ab12", CreatedAt: at},
		{Provider: "turboquant", Bits: 2, Variant: "ip", Seed: 4294967295, Dim: 384, Fingerprint: "cd34", CreatedAt: at.Add(time.Second)},
	} {
		if err := set(&c); err != nil {
			t.Fatalf("set %+v: %v", c, err)
		}
		got, ok, err := st.Compression(ctx)
		if err != nil || !ok || got != c {
			t.Fatalf("Compression = %+v %v %v, want %+v", got, ok, err, c)
		}
	}
	kept, _, _ := st.Compression(ctx)
	for name, bad := range map[string]persist.Compression{
		"bits":        {Provider: "turboquant", Bits: 5, Variant: "mse", Dim: 3, Fingerprint: "x"},
		"variant":     {Provider: "turboquant", Bits: 4, Variant: "pq", Dim: 3, Fingerprint: "x"},
		"dim":         {Provider: "turboquant", Bits: 4, Variant: "mse", Fingerprint: "x"},
		"fingerprint": {Provider: "turboquant", Bits: 4, Variant: "mse", Dim: 3},
		"provider":    {Bits: 4, Variant: "mse", Dim: 3, Fingerprint: "x"},
	} {
		if err := set(&bad); err == nil {
			t.Fatalf("%s: bad record accepted", name)
		}
		if got, ok, _ := st.Compression(ctx); !ok || got != kept {
			t.Fatalf("%s: a refused record replaced the kept one: %+v", name, got)
		}
	}
	now := time.Now()
	c := persist.Compression{Provider: "turboquant", Bits: 3, Variant: "mse", Dim: 8, Fingerprint: "ef"}
	if err := set(&c); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := st.Compression(ctx); r.CreatedAt.Before(now.Add(-time.Minute)) {
		t.Fatalf("a zero CreatedAt was not set to now: %v", r.CreatedAt)
	}
	if err := set(nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Compression(ctx); ok || err != nil {
		t.Fatalf("after removal: ok %v err %v", ok, err)
	}
}
