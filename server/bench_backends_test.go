package server_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/model/builtin"
)

// BenchmarkSearchBackends: the same searches through an MCP
// client over every store kind the test script provides, side by side in
// one run: SQLite and PostgreSQL 15 with the in-process indexes, SQLite's
// FTS5 + sqlite-vec and PostgreSQL's tsvector (no pgvector in Debian's
// PostgreSQL 15: full text only) natively, and pgvector on PGlite (when
// CONTEXTD_TEST_PGLITE_URL is set). The corpus is the Go source tree's
// doc-comment paragraphs (CONTEXTD_BACKENDS_BENCH_N of them, default
// 2,000: PGlite is PostgreSQL compiled to WebAssembly with one shared
// session, slow to fill); queries are the first six words of paragraphs
// spread over it. Every kind uses the built-in embedder when it has
// vectors; reranking is off so the figures are the search legs' own.
//
//	./scripts/pgcluster.sh is sourced by scripts/test.sh; by hand:
//	CONTEXTD_TEST_POSTGRES_URL=... go test ./server -run '^$' -bench BenchmarkSearchBackends -benchtime 50x
func BenchmarkSearchBackends(b *testing.B) {
	n := 2000
	if v := os.Getenv("CONTEXTD_BACKENDS_BENCH_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("CONTEXTD_BACKENDS_BENCH_N=%q is not a positive integer", v)
		}
	}
	docs, err := testcorpus.Paragraphs(n)
	if err != nil {
		b.Skip(err)
	}
	var queries []string
	for i := range 100 {
		w := strings.Fields(docs[i*len(docs)/100])
		queries = append(queries, strings.Join(w[:min(len(w), 6)], " "))
	}
	kinds := storeKinds()
	for _, k := range vectorKinds() {
		if k.name == "postgresql-pgvector" {
			kinds = append(kinds, k)
		}
	}
	for _, kind := range kinds {
		b.Run(kind.name, func(b *testing.B) {
			opts := []envOption{withConfig(func(c *contextd.Config) { c.FTS.Progress = io.Discard })}
			tools := []string{"search_context", "fts_search_context"}
			if !kind.noVectors {
				opts = append(opts, withEmbedder(&builtin.Embedder{}))
				tools = append(tools, "semantic_search_context", "hybrid_search_context")
			}
			e := newEnv(b, kind, opts...)
			ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "bench"})
			no := false
			for i := 0; i < len(docs); i += 100 {
				req := contextd.StoreBatchRequest{}
				for j := i; j < min(i+100, len(docs)); j++ {
					req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
						ThreadID: fmt.Sprintf("thread-%02d", j%8), Source: "agent", Text: docs[j], Deduplicate: &no,
					}})
				}
				if _, err := e.eng.StoreBatch(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			c := e.as(b, "bench")
			for _, tool := range tools {
				b.Run(tool, func(b *testing.B) {
					args := func(i int) map[string]any {
						if tool == "search_context" {
							return map[string]any{"thread_id": fmt.Sprintf("thread-%02d", i%8), "limit": 10}
						}
						return map[string]any{"query": queries[i%len(queries)], "limit": 10}
					}
					call := func(i int) {
						req := mcp.CallToolRequest{}
						req.Params.Name, req.Params.Arguments = tool, args(i)
						res, err := c.CallTool(context.Background(), req)
						if err != nil || res.IsError {
							b.Fatalf("%s: %v %v", tool, err, res)
						}
					}
					call(0) // the in-process indexes catch up outside the timing
					b.ReportAllocs()
					var lat []time.Duration
					for i := 0; b.Loop(); i++ {
						t0 := time.Now()
						call(i)
						lat = append(lat, time.Since(t0))
					}
					reportLatency(b, lat)
				})
			}
		})
	}
}
