package contextd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/hashembed"
)

// semanticEngine opens an engine with the built-in embedder on a fresh
// database file in dir.
func semanticEngine(t *testing.T, dir, backend string) *Engine {
	t.Helper()
	ctx := context.Background()
	eng, err := Open(ctx, Config{
		DBPath:    filepath.Join(dir, "ctx.db"),
		FTS:       FTSConfig{Backend: backend, Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: &builtin.Embedder{}, Provider: "builtin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func as(id string, groups ...string) context.Context {
	return WithPrincipal(context.Background(), Principal{ID: id, Groups: groups})
}

var semanticTexts = []string{
	"The automobile would not start in the cold morning",
	"Quarterly revenue grew thanks to strong subscription sales",
	"The recipe calls for two cups of flour and a pinch of salt",
	"Our football team won the championship final last night",
	"Database migrations must run inside a single transaction",
	"The cat slept on the warm windowsill all afternoon",
}

func TestSemanticAndHybridBackends(t *testing.T) {
	for _, backend := range []string{BackendInProcess, BackendNative} {
		t.Run(backend, func(t *testing.T) {
			eng := semanticEngine(t, t.TempDir(), backend)
			defer eng.Close()
			alice, bob := as("alice"), as("bob")
			ids := map[string]string{}
			for i, text := range semanticTexts {
				ctx := alice
				if i == 3 {
					ctx = bob // bob's private entry: never visible to alice
				}
				r, err := eng.Store(ctx, StoreRequest{ThreadID: fmt.Sprintf("t%d", i%2), Source: "user", Text: text})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(r.Message, "embedding generated") {
					t.Fatalf("store message %q does not report the embedding", r.Message)
				}
				ids[text] = r.ContextID
			}
			if !eng.SemanticAvailable() || !eng.HybridAvailable() {
				t.Fatal("semantic or hybrid search unavailable")
			}
			res, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: "car engine failure in winter", Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) == 0 || res.Results[0].ID != ids[semanticTexts[0]] {
				t.Fatalf("paraphrase not first: %+v", res.Results)
			}
			if res.Model != builtin.EmbedderModel {
				t.Fatalf("model %q", res.Model)
			}
			// Hidden entries never appear, in either search.
			all, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: "football championship", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if all.Count != len(semanticTexts)-1 {
				t.Fatalf("alice sees %d entries, want %d", all.Count, len(semanticTexts)-1)
			}
			for _, r := range all.Results {
				if r.ID == ids[semanticTexts[3]] {
					t.Fatal("bob's private entry leaked into alice's semantic search")
				}
			}
			hy, err := eng.HybridSearch(alice, HybridSearchRequest{Query: "football championship", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range hy.Results {
				if r.ID == ids[semanticTexts[3]] {
					t.Fatal("bob's private entry leaked into alice's hybrid search")
				}
			}
			if !slices.Equal(hy.SearchModesUsed, []string{"fts", "semantic"}) {
				t.Fatalf("modes %v", hy.SearchModesUsed)
			}
			// Filters apply inside the search.
			th, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: "anything", Limit: 100, SearchFilter: SearchFilter{ThreadID: "t1"}})
			if err != nil {
				t.Fatal(err)
			}
			if th.Count != 2 { // t1 holds entries 1, 3 (bob's), 5
				t.Fatalf("thread filter: %d results, want 2", th.Count)
			}
			// Pages are windows of one ordering.
			var paged []string
			for off := 0; off < 6; off += 2 {
				p, err := eng.HybridSearch(alice, HybridSearchRequest{Query: "the cat and the car", Limit: 2, Offset: off})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Results {
					paged = append(paged, r.ID)
				}
			}
			whole, err := eng.HybridSearch(alice, HybridSearchRequest{Query: "the cat and the car", Limit: 6})
			if err != nil {
				t.Fatal(err)
			}
			var wholeIDs []string
			for _, r := range whole.Results {
				wholeIDs = append(wholeIDs, r.ID)
			}
			if !slices.Equal(paged, wholeIDs) {
				t.Fatalf("pages %v != whole %v", paged, wholeIDs)
			}
			// An update replaces the vectors; a delete removes them.
			newText := "Heavy snowfall closed the mountain pass for the winter"
			up, err := eng.Update(alice, UpdateRequest{ContextID: ids[semanticTexts[0]], Text: &newText})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(up.UpdatedFields, "embedding") || !strings.Contains(up.Message, "embedding regenerated") {
				t.Fatalf("update did not report the embedding: %+v", up)
			}
			res, err = eng.SemanticSearch(alice, SemanticSearchRequest{Query: "snow blocked the road through the mountains", Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 1 || res.Results[0].ID != ids[semanticTexts[0]] {
				t.Fatalf("updated entry not found by its new meaning: %+v", res.Results)
			}
			if _, err := eng.Delete(alice, DeleteRequest{ContextIDs: []string{ids[semanticTexts[0]]}}); err != nil {
				t.Fatal(err)
			}
			res, err = eng.SemanticSearch(alice, SemanticSearchRequest{Query: "snow blocked the road through the mountains", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Results {
				if r.ID == ids[semanticTexts[0]] {
					t.Fatal("deleted entry still found")
				}
			}
			// Offset at the depth answers without searching.
			deep, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: "x", Offset: 100})
			if err != nil {
				t.Fatal(err)
			}
			if deep.Count != 0 || deep.RankDepthLimit == nil {
				t.Fatalf("offset 100: %+v", deep)
			}
		})
	}
}

func TestSemanticIndexSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	eng := semanticEngine(t, dir, BackendInProcess)
	alice := as("alice")
	var ids []string
	for _, text := range semanticTexts {
		r, err := eng.Store(alice, StoreRequest{ThreadID: "t", Source: "user", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ContextID)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	// Writes the index never saw: through an engine without embeddings
	// (text changes clear the vectors) and one with them.
	plain, err := Open(alice, Config{DBPath: filepath.Join(dir, "ctx.db"), FTS: FTSConfig{Disable: true}})
	if err != nil {
		t.Fatal(err)
	}
	changed := "Completely different words about gardening and roses"
	if _, err := plain.Update(alice, UpdateRequest{ContextID: ids[1], Text: &changed}); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Delete(alice, DeleteRequest{ContextIDs: []string{ids[2]}}); err != nil {
		t.Fatal(err)
	}
	plain.Close()
	eng = semanticEngine(t, dir, BackendInProcess)
	defer eng.Close()
	res, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: "automobile cold start", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Results {
		got = append(got, r.ID)
	}
	slices.Sort(got)
	want := []string{ids[0], ids[3], ids[4], ids[5]} // 1 has no vectors now, 2 is gone
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after restart: %v, want %v", got, want)
	}
}

func TestEmbeddingModelChangeRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	eng := semanticEngine(t, dir, BackendInProcess)
	if _, err := eng.Store(as("alice"), StoreRequest{ThreadID: "t", Source: "user", Text: "some text"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	_, err := Open(context.Background(), Config{
		DBPath:    filepath.Join(dir, "ctx.db"),
		FTS:       FTSConfig{Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: hashembed.New(64)},
	})
	if !errors.Is(err, ErrEmbeddingModelChanged) || !strings.Contains(err.Error(), ReembedCommand) {
		t.Fatalf("err = %v, want the model-changed error naming %q", err, ReembedCommand)
	}
	// The migration: re-embed with the new model, then it opens and finds.
	cfg := Config{
		DBPath:    filepath.Join(dir, "ctx.db"),
		FTS:       FTSConfig{Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: hashembed.New(64), Reembed: true},
	}
	re, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := re.Reembed(context.Background(), nil); err != nil || n != 1 {
		t.Fatalf("Reembed = %d, %v", n, err)
	}
	re.Close()
	cfg.Embedding.Reembed = false
	eng, err = Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open after reembed: %v", err)
	}
	defer eng.Close()
	res, err := eng.SemanticSearch(as("alice"), SemanticSearchRequest{Query: "some text"})
	if err != nil || res.Count != 1 || res.Model != hashembed.New(64).Model() {
		t.Fatalf("search after reembed: %+v, %v", res, err)
	}
}

func TestEmbeddingFailureStoresNothing(t *testing.T) {
	ctx := as("alice")
	eng, err := Open(ctx, Config{
		DBPath:    filepath.Join(t.TempDir(), "ctx.db"),
		FTS:       FTSConfig{Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: failingEmbedder{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: "hello"})
	if err == nil || !strings.HasPrefix(err.Error(), "Generation failed after exhausting configured retries: embedding: ") {
		t.Fatalf("err = %v", err)
	}
	got, err := eng.Search(ctx, SearchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != 0 {
		t.Fatalf("%d entries stored after a failed embedding", got.Count)
	}
}

type failingEmbedder struct{}

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("provider down")
}
func (failingEmbedder) Dim() int      { return 8 }
func (failingEmbedder) Model() string { return "failing" }

func TestHybridQueryFTSCannotParse(t *testing.T) {
	for _, backend := range []string{BackendInProcess, BackendNative} {
		t.Run(backend, func(t *testing.T) {
			eng := semanticEngine(t, t.TempDir(), backend)
			defer eng.Close()
			alice := as("alice")
			if _, err := eng.Store(alice, StoreRequest{ThreadID: "t", Source: "user", Text: "lantern by the river"}); err != nil {
				t.Fatal(err)
			}
			res, err := eng.HybridSearch(alice, HybridSearchRequest{Query: "lantern\x00river"})
			if err != nil {
				t.Fatal(err)
			}
			want := "FTS sub-search failed; results may be based on semantic search only. FTS: FTS query validation failed"
			if !slices.Equal(res.SearchModesUsed, []string{"semantic"}) || len(res.Warnings) != 1 || res.Warnings[0] != want ||
				len(res.ValidationErrors) != 1 || !strings.Contains(res.ValidationErrors[0], "NUL") || res.Count != 1 {
				t.Fatalf("response %+v", res)
			}
			// A semantic query has no length cap (B.8).
			long := strings.Repeat("lantern river ", 1000)
			if _, err := eng.SemanticSearch(alice, SemanticSearchRequest{Query: long}); err != nil {
				t.Fatalf("long semantic query: %v", err)
			}
		})
	}
}

func TestSemanticStatistics(t *testing.T) {
	eng := semanticEngine(t, t.TempDir(), BackendInProcess)
	defer eng.Close()
	alice, bob := as("alice"), as("bob")
	long := strings.Repeat("A sentence about vectors and chunks. ", 100) // 3,700 code points: 3 chunks
	for _, c := range []struct {
		ctx  context.Context
		text string
	}{{alice, "short text"}, {alice, long}, {bob, "bob's private text"}} {
		if _, err := eng.Store(c.ctx, StoreRequest{ThreadID: "t", Source: "user", Text: c.text}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := eng.Statistics(alice)
	if err != nil {
		t.Fatal(err)
	}
	s := st.SemanticSearch
	if !s.Enabled || !s.Available || s.SemanticFigures == nil || s.ContextCount != 2 || s.EmbeddingCount != 4 ||
		s.AverageChunksPerEntry != 2 || s.CoveragePercentage != 100 || s.Dimensions != builtin.EmbedderDim {
		t.Fatalf("semantic_search %+v figures %+v", s, s.SemanticFigures)
	}
	if !st.Chunking.Available || st.Chunking.ChunkSize != 1500 || st.Chunking.ChunkOverlap != 150 || st.Chunking.Aggregation != "max" {
		t.Fatalf("chunking %+v", st.Chunking)
	}
	if st.EmbeddingsSizeMB == nil || st.EmbeddingsEstimated == nil || *st.EmbeddingsEstimated {
		t.Fatalf("embeddings size %v estimated %v", st.EmbeddingsSizeMB, st.EmbeddingsEstimated)
	}
	plain, err := Open(alice, Config{DBPath: filepath.Join(t.TempDir(), "p.db"), FTS: FTSConfig{Progress: &strings.Builder{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ps, err := plain.Statistics(alice)
	if err != nil {
		t.Fatal(err)
	}
	if ps.SemanticSearch != (SemanticStatus{}) || ps.EmbeddingsSizeMB != nil {
		t.Fatalf("without an embedder: %+v, size %v", ps.SemanticSearch, ps.EmbeddingsSizeMB)
	}
}

// TestNativeFullTextAfterInProcessWrites: an in-process engine drops the
// FTS5 triggers; a native engine on the same database, started before or
// after, still finds every entry (the table is restored and rebuilt).
func TestNativeFullTextAfterInProcessWrites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ctx.db")
	alice := as("alice")
	open := func(backend string) *Engine {
		eng, err := Open(alice, Config{DBPath: db, FTS: FTSConfig{Backend: backend, Progress: &strings.Builder{}}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	native := open(BackendNative)
	defer native.Close()
	inproc := open(BackendInProcess)
	defer inproc.Close()
	for _, text := range []string{"first lantern note", "second lantern note"} {
		if _, err := inproc.Store(alice, StoreRequest{ThreadID: "t", Source: "user", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, eng := range []*Engine{native, inproc} {
		res, err := eng.FTSSearch(alice, FTSSearchRequest{Query: "lantern", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != 2 {
			t.Fatalf("%s backend found %d entries, want 2", eng.fts.Backend(), res.Count)
		}
	}
	late := open(BackendNative)
	defer late.Close()
	res, err := late.FTSSearch(alice, FTSSearchRequest{Query: "note", Limit: 10})
	if err != nil || res.Count != 2 {
		t.Fatalf("native engine started later: %+v, %v", res, err)
	}
}
