package contextd

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// countingStore is the kind of wrapper a library user writes for metrics or
// tracing: it embeds persist.Store and overrides one method. Before the
// contract was exported, such a wrapper hid the optional capabilities the
// engine found by type assertion, and full-text search quietly vanished.
type countingStore struct {
	persist.Store
	writes atomic.Int64
}

func (s *countingStore) Write(ctx context.Context, fn func(persist.Tx) error) error {
	s.writes.Add(1)
	return s.Store.Write(ctx, fn)
}

// TestWrappedStoreKeepsSearch: a store wrapped by a type embedding
// persist.Store keeps full-text, semantic and hybrid search, on both search
// backends.
func TestWrappedStoreKeepsSearch(t *testing.T) {
	for _, backend := range []string{BackendInProcess, BackendNative} {
		t.Run(backend, func(t *testing.T) {
			ctx := as("alice")
			st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "w.db")})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ws := &countingStore{Store: st}
			eng, err := Open(ctx, Config{
				Store:     ws,
				FTS:       FTSConfig{Backend: backend, Progress: &strings.Builder{}},
				Embedding: EmbeddingConfig{Embedder: &builtin.Embedder{}, Provider: "builtin"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if !eng.FTSAvailable() || !eng.SemanticAvailable() || !eng.HybridAvailable() {
				t.Fatalf("search unavailable through the wrapper: fts %v semantic %v hybrid %v",
					eng.FTSAvailable(), eng.SemanticAvailable(), eng.HybridAvailable())
			}
			var want string
			for i, text := range semanticTexts {
				r, err := eng.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: text})
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					want = r.ContextID
				}
			}
			if got := ws.writes.Load(); got < int64(len(semanticTexts)) {
				t.Fatalf("the wrapper saw %d writes, want at least %d", got, len(semanticTexts))
			}
			fts, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: "automobile cold", Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(fts.Results) == 0 || fts.Results[0].ID != want {
				t.Fatalf("full-text search through the wrapper: %+v", fts.Results)
			}
			sem, err := eng.SemanticSearch(ctx, SemanticSearchRequest{Query: "car engine failure in winter", Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(sem.Results) == 0 || sem.Results[0].ID != want {
				t.Fatalf("semantic search through the wrapper: %+v", sem.Results)
			}
			hyb, err := eng.HybridSearch(ctx, HybridSearchRequest{Query: "automobile engine failure in winter", Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hyb.Results) == 0 || hyb.Results[0].ID != want {
				t.Fatalf("hybrid search through the wrapper: %+v", hyb.Results)
			}
		})
	}
}
