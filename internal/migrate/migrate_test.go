package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/internal/migrate"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/quant"
)

var local = contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})

func engineConfig(db string, s quant.Settings) contextd.Config {
	return contextd.Config{DBPath: db, FTS: contextd.FTSConfig{Disable: true, Progress: io.Discard},
		Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}, Compression: s}}
}

func open(t *testing.T, db string, s quant.Settings) (*contextd.Engine, error) {
	t.Helper()
	return contextd.Open(local, engineConfig(db, s))
}

// populate stores n Go doc paragraphs with float32 vectors (compression
// off) and returns the queries: other paragraphs' first words.
func populate(t *testing.T, db string, n int) []string {
	t.Helper()
	ps, err := testcorpus.Paragraphs(n + 40)
	if err != nil {
		t.Skip(err)
	}
	eng, err := open(t, db, quant.Settings{Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	no := false
	for i := 0; i < n; i += 100 {
		var req contextd.StoreBatchRequest
		for _, p := range ps[i:min(i+100, n)] {
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: "t", Source: "user", Text: p, Deduplicate: &no}})
		}
		if _, err := eng.StoreBatch(local, req); err != nil {
			t.Fatal(err)
		}
	}
	var qs []string
	for _, p := range ps[n:] {
		qs = append(qs, p[:min(len(p), 60)])
	}
	return qs
}

// top10 is the semantic top 10 of every query.
func top10(t *testing.T, eng *contextd.Engine, qs []string) [][]string {
	t.Helper()
	var out [][]string
	for _, q := range qs {
		res, err := eng.SemanticSearch(local, contextd.SemanticSearchRequest{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range res.Results {
			ids = append(ids, r.ID)
		}
		out = append(out, ids)
	}
	return out
}

func recall(got, want [][]string) float64 {
	found, total := 0, 0
	for i := range want {
		for _, id := range got[i] {
			if slices.Contains(want[i], id) {
				found++
			}
		}
		total += len(want[i])
	}
	return float64(found) / float64(total)
}

func store(t *testing.T, db string) persist.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func codec(t *testing.T, s quant.Settings) *compress.Codec {
	t.Helper()
	c, err := compress.New(s, (&builtin.Embedder{}).Dim())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func convert(t *testing.T, db string, c *compress.Codec) (migrate.Result, persist.VectorForms) {
	t.Helper()
	st := store(t, db)
	defer st.Close()
	var res migrate.Result
	var err error
	if c != nil {
		res, err = migrate.Compress(context.Background(), st, c, migrate.Options{Batch: 150})
	} else {
		res, err = migrate.Decompress(context.Background(), st, migrate.Options{Batch: 150})
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := st.VectorForms(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, f
}

// TestMigrateCompressDecompress_C14: a populated float32 database refuses
// compression at start-up; compressed with the floats kept, search ranks
// exactly as before; compressed to codes only (the default), search finds
// the same top results within the codes' measured recall; decompressed, it
// serves with compression off again.
func TestMigrateCompressDecompress_C14(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ctx.db")
	n := 800
	qs := populate(t, db, n)
	eng, err := open(t, db, quant.Settings{Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	before := top10(t, eng, qs)
	eng.Close()
	if _, err := open(t, db, quant.Settings{CodesOnly: true}); !errors.Is(err, contextd.ErrCompressionChanged) {
		t.Fatalf("compression over float32 vectors: %v", err)
	}

	res, f := convert(t, db, codec(t, quant.Settings{}))
	if f.Chunks < n || f.Float != f.Chunks || f.Code != f.Chunks || res.Rewritten != f.Chunks {
		t.Fatalf("keep-float compress: %+v, forms %+v", res, f)
	}
	eng, err = open(t, db, quant.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := top10(t, eng, qs); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("with the floats kept the ranking changed: recall %.3f", recall(got, before))
	}
	eng.Close()

	res, f = convert(t, db, codec(t, quant.Settings{CodesOnly: true}))
	if f.Float != 0 || f.Code != f.Chunks || res.Rewritten != f.Chunks {
		t.Fatalf("codes-only compress: %+v, forms %+v", res, f)
	}
	eng, err = open(t, db, quant.Settings{CodesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r := recall(top10(t, eng, qs), before)
	t.Logf("recall@10 of codes-only search against float32 before the migration: %.3f", r)
	if r < 0.75 {
		t.Fatalf("codes-only recall@10 %.3f", r)
	}
	eng.Close()
	// Re-encoding with other settings goes through the codes.
	if res, _ = convert(t, db, codec(t, quant.Settings{Bits: 3, CodesOnly: true})); res.Rewritten != f.Chunks {
		t.Fatalf("re-encode to 3 bits: %+v", res)
	}
	if res, _ = convert(t, db, codec(t, quant.Settings{Bits: 3, CodesOnly: true})); res.Rewritten != 0 {
		t.Fatalf("a second run rewrote %d chunks", res.Rewritten)
	}

	res, f = convert(t, db, nil)
	if f.Code != 0 || f.Float != f.Chunks || res.Rewritten != f.Chunks {
		t.Fatalf("decompress: %+v, forms %+v", res, f)
	}
	if _, err := open(t, db, quant.Settings{CodesOnly: true}); !errors.Is(err, contextd.ErrCompressionChanged) {
		t.Fatalf("compression over decompressed vectors: %v", err)
	}
	eng, err = open(t, db, quant.Settings{Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recall@10 after decompressing 3-bit codes: %.3f", recall(top10(t, eng, qs), before))
	eng.Close()
}

// TestMigrateResumes_C14: a compression stopped after its first batch
// leaves a database the start-up check refuses (naming the migration);
// running it again converts only what is left.
func TestMigrateResumes_C14(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ctx.db")
	populate(t, db, 500)
	st := store(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	first := 0
	_, err := migrate.Compress(ctx, st, codec(t, quant.Settings{CodesOnly: true}), migrate.OptionsAfterBatch(100, func(done int) {
		first = done
		cancel()
	}))
	st.Close()
	if !errors.Is(err, context.Canceled) || first == 0 {
		t.Fatalf("stopped compress: %v after %d", err, first)
	}
	if _, err := open(t, db, quant.Settings{CodesOnly: true}); !errors.Is(err, contextd.ErrCompressionChanged) {
		t.Fatalf("half-compressed database: %v", err)
	}
	res, f := convert(t, db, codec(t, quant.Settings{CodesOnly: true}))
	if res.Rewritten != f.Chunks-first || f.Float != 0 || f.Code != f.Chunks {
		t.Fatalf("resumed: %+v (first run %d), forms %+v", res, first, f)
	}
	eng, err := open(t, db, quant.Settings{CodesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	eng.Close()
}
