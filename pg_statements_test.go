package contextd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// TestPostgresStatementBudget: a ranked search on PostgreSQL with the
// in-process indexes costs a fixed, small number of statements (each one
// a round trip to the server), whatever the page holds: counted with the
// store's statement counter around a call after a warm-up, on a store of
// 300 entries with tags. The counter is the store's, so an index applier
// woken by the stores may add its own read to a call: the fewest of five
// calls is compared. The budgets are what the calls cost when the test
// was written (the change-log catch-up, shared by hybrid's two legs, and
// the page in one statement): a change that adds a statement to a ranked
// call makes it fail, so round trips cannot creep back one at a time.
// Before the budgets, a page took two statements and each of hybrid's
// legs its own catch-up (3, 3, 3, 3 and 5); hybrid then read the texts
// of its best full-text hits for the fusion weight (3), which the index
// now counts itself (rank.EvidenceOf).
func TestPostgresStatementBudget(t *testing.T) {
	url, schema := pgtest.Schema(t)
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	st, err := postgres.Open(ctx, postgres.Options{URL: url, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Open(ctx, Config{
		Store:     st,
		DBPath:    filepath.Join(t.TempDir(), "ctx.db"),
		FTS:       FTSConfig{Backend: BackendInProcess, Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: hashembed.New(64)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	vocab := strings.Fields("harbour crane lantern meadow quartz violin glacier saddle copper willow")
	no := false
	for b := range 3 {
		var req StoreBatchRequest
		for i := range 100 {
			n := b*100 + i
			text := fmt.Sprintf("entry %d about the %s and the %s near the %s", n, vocab[n%10], vocab[n/10%10], vocab[(n*7)%10])
			req.Entries = append(req.Entries, StoreBatchItem{StoreRequest: StoreRequest{
				ThreadID: fmt.Sprintf("t%d", n%4), Source: "agent", Text: text,
				Tags: []string{vocab[n%10], "all"}, Deduplicate: &no,
			}})
		}
		res, err := eng.StoreBatch(ctx, req)
		if err != nil || res.Succeeded != 100 {
			t.Fatalf("store batch: %v %+v", err, res)
		}
	}
	calls := []struct {
		name   string
		budget int64
		call   func() (int, error)
	}{
		{"search_context", 2, func() (int, error) {
			r, err := eng.Search(ctx, SearchRequest{SearchFilter: SearchFilter{ThreadID: "t1"}, Limit: 10})
			return len(r.Results), err
		}},
		{"fts_search_context", 2, func() (int, error) {
			r, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: "harbour crane", Limit: 10})
			return len(r.Results), err
		}},
		{"fts_search_context OR", 2, func() (int, error) {
			r, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: "harbour OR quartz", Mode: "boolean", Limit: 10})
			return len(r.Results), err
		}},
		{"semantic_search_context", 2, func() (int, error) {
			r, err := eng.SemanticSearch(ctx, SemanticSearchRequest{Query: "lantern near the meadow", Limit: 10})
			return len(r.Results), err
		}},
		{"hybrid_search_context", 2, func() (int, error) {
			r, err := eng.HybridSearch(ctx, HybridSearchRequest{Query: "lantern near the meadow", Limit: 10})
			return len(r.Results), err
		}},
	}
	for _, c := range calls {
		if _, err := c.call(); err != nil { // warm-up: indexes catch up
			t.Fatalf("%s: %v", c.name, err)
		}
		got, n := int64(-1), 0
		for range 5 {
			before := st.PoolStats().TotalQueries
			k, err := c.call()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if d := st.PoolStats().TotalQueries - before; got < 0 || d < got {
				got = d
			}
			n = k
		}
		t.Logf("%s: %d statements, %d results", c.name, got, n)
		if n == 0 {
			t.Errorf("%s: no results", c.name)
		}
		if got > c.budget {
			t.Errorf("%s: %d statements, budget %d", c.name, got, c.budget)
		}
	}
}
