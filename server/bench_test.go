package server_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/server"
)

// benchEnv is an engine on a fresh SQLite file with an in-process client.
type benchEnv struct {
	eng *contextd.Engine
	c   *client.Client
}

func newBenchEnv(b *testing.B) *benchEnv { return newBenchEnvWith(b, nil) }

// newBenchEnvWith is newBenchEnv with env overriding the environment
// (BenchmarkStoreBatch's compression on and off).
func newBenchEnvWith(b *testing.B, env map[string]string) *benchEnv {
	b.Helper()
	ctx := context.Background()
	// The product's configuration from the environment, as the server
	// reads it (unset: the defaults of the README's run command, built-in
	// embeddings, summaries and reranker, in-process search), on a fresh
	// database.
	db := filepath.Join(b.TempDir(), "bench.db")
	cfg, err := config.FromEnv(func(k string) (string, bool) {
		if k == "DB_PATH" {
			return db, true
		}
		if v, ok := env[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	})
	if err != nil {
		b.Fatal(err)
	}
	cfg.Engine.FTS.Progress = io.Discard
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	srv, err := server.New(eng, server.Options{DefaultPrincipal: "local"})
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return &benchEnv{eng: eng, c: c}
}

var benchStatuses = []string{"active", "pending", "done", "blocked", "review"}

// benchEntry makes the i-th synthetic entry: 100 threads, five statuses,
// a few tags and a paragraph of varied words.
func benchEntry(rng *rand.Rand, i int) map[string]any {
	words := []string{"index", "query", "vector", "agent", "memory", "thread", "store", "search", "filter", "budget", "grant", "owner"}
	text := fmt.Sprintf("entry %d:", i)
	for w := 0; w < 40; w++ {
		text += " " + words[rng.IntN(len(words))]
	}
	return map[string]any{
		"thread_id":   fmt.Sprintf("thread-%03d", i%100),
		"source":      []string{"user", "agent"}[i%2],
		"text":        text,
		"tags":        []any{fmt.Sprintf("tag-%d", i%20), "bench"},
		"metadata":    map[string]any{"status": benchStatuses[rng.IntN(len(benchStatuses))], "priority": rng.IntN(10)},
		"deduplicate": false,
	}
}

func (e *benchEnv) call(b *testing.B, tool string, args map[string]any) *mcp.CallToolResult {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := e.c.CallTool(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s failed: %v", tool, res.Content)
	}
	return res
}

// seed stores n entries through the engine in atomic batches of 100.
func (e *benchEnv) seed(b *testing.B, n int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
	for i := 0; i < n; i += 100 {
		req := contextd.StoreBatchRequest{}
		for j := i; j < min(i+100, n); j++ {
			m := benchEntry(rng, j)
			no := false
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: m["thread_id"].(string), Source: m["source"].(string), Text: m["text"].(string),
				Tags: []string{fmt.Sprintf("tag-%d", j%20), "bench"}, Metadata: m["metadata"].(map[string]any), Deduplicate: &no,
			}})
		}
		if _, err := e.eng.StoreBatch(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	e.catchUp(b)
}

// catchUp waits until the in-process indexes hold every stored entry: a
// search of each kind catches its index up.
func (e *benchEnv) catchUp(b *testing.B) {
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
	if _, err := e.eng.FTSSearch(ctx, contextd.FTSSearchRequest{Query: "index"}); err != nil {
		b.Fatal(err)
	}
	if e.eng.SemanticAvailable() {
		if _, err := e.eng.SemanticSearch(ctx, contextd.SemanticSearchRequest{Query: "index"}); err != nil {
			b.Fatal(err)
		}
	}
}

// reportLatency adds median and p99 in milliseconds to the benchmark.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	b.ReportMetric(ms(d[len(d)/2]), "ms-median")
	b.ReportMetric(ms(d[min(len(d)-1, len(d)*99/100)]), "ms-p99")
}

// BenchmarkStoreBatch measures store_context_batch through MCP: one op is a
// batch of 100 entries; entries/s is the throughput. It runs on 1k and
// 100k stored entries, with compression on (the default: codes and floats
// in SQL) and off, so the four figures of the README come from one run.
func BenchmarkStoreBatch(b *testing.B) {
	for _, size := range []int{1_000, 100_000} {
		for _, comp := range []string{"on", "off"} {
			env := map[string]string{"ENABLE_EMBEDDING_COMPRESSION": map[string]string{"on": "true", "off": "false"}[comp]}
			b.Run(fmt.Sprintf("existing=%d/compression=%s", size, comp), func(b *testing.B) {
				benchStoreBatch(b, newBenchEnvWith(b, env), size)
			})
		}
	}
}

func benchStoreBatch(b *testing.B, e *benchEnv, size int) {
	e.seed(b, size)
	rng := rand.New(rand.NewPCG(3, 4))
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	for i := 0; b.Loop(); i++ {
		entries := make([]any, 100)
		for j := range entries {
			entries[j] = benchEntry(rng, size+i*100+j)
		}
		e.call(b, "store_context_batch", map[string]any{"entries": entries})
	}
	// entries/s counts acknowledged (durable) stores; the in-process
	// full-text and vector indexes apply them in the background
	// meanwhile, and searchable/s also waits until both caught up.
	acked := time.Since(start)
	e.catchUp(b)
	n := float64(b.N * 100)
	b.ReportMetric(n/acked.Seconds(), "entries/s")
	b.ReportMetric(n/time.Since(start).Seconds(), "searchable/s")
	// CPU time of the whole process per entry, indexes caught up: on a
	// shared machine the wall figures move with the other processes' load,
	// this much less; two idle cores store at most 2e6/cpu-µs entries/s.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/n, "cpu-µs/entry")
}

// BenchmarkStoreSingle measures one store_context per op through MCP.
func BenchmarkStoreSingle(b *testing.B) {
	for _, size := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("existing=%d", size), func(b *testing.B) {
			e := newBenchEnv(b)
			e.seed(b, size)
			rng := rand.New(rand.NewPCG(5, 6))
			b.ReportAllocs()
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				e.call(b, "store_context", benchEntry(rng, size+i))
				lat = append(lat, time.Since(t0))
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkSearchContext measures filtered search_context through MCP.
func BenchmarkSearchContext(b *testing.B) {
	queries := []struct {
		name string
		args func(i int) map[string]any
	}{
		{"thread+status", func(i int) map[string]any {
			return map[string]any{"thread_id": fmt.Sprintf("thread-%03d", i%100),
				"metadata_filters": []any{map[string]any{"key": "status", "operator": "eq", "value": benchStatuses[i%5]}}}
		}},
		{"tags+source", func(i int) map[string]any {
			// Even tags belong to user entries (both follow i), so every query matches.
			return map[string]any{"tags": []any{fmt.Sprintf("tag-%d", 2*(i%10))}, "source": "user", "limit": 10}
		}},
		{"priority-gt", func(i int) map[string]any {
			return map[string]any{"metadata_filters": []any{map[string]any{"key": "priority", "operator": "gte", "value": 5}}, "limit": 30}
		}},
		{"unfiltered", func(i int) map[string]any { return map[string]any{} }},
	}
	for _, size := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			e := newBenchEnv(b)
			e.seed(b, size)
			for _, q := range queries {
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					var lat []time.Duration
					for i := 0; b.Loop(); i++ {
						t0 := time.Now()
						e.call(b, "search_context", q.args(i))
						lat = append(lat, time.Since(t0))
					}
					reportLatency(b, lat)
				})
			}
		})
	}
}

// BenchmarkHybridSearch measures hybrid_search_context through MCP with
// the default configuration (both legs, built-in reranker) over real text:
// the doc-comment paragraphs of the Go source tree; queries are the
// opening words of paragraphs spread over the corpus.
//
//	go test -run '^$' -bench BenchmarkHybridSearch -benchtime 200x ./server
func BenchmarkHybridSearch(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if v := os.Getenv("CONTEXTD_HYBRID_BENCH_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("CONTEXTD_HYBRID_BENCH_N=%q is not a positive integer", v)
		}
		sizes = []int{n}
	}
	for _, size := range sizes {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			docs, err := testcorpus.Paragraphs(size)
			if err != nil {
				b.Skip(err)
			}
			e := newBenchEnv(b)
			ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
			no := false
			for i := 0; i < size; i += 100 {
				req := contextd.StoreBatchRequest{}
				for j := i; j < min(i+100, size); j++ {
					req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
						ThreadID: fmt.Sprintf("thread-%03d", j%100), Source: "agent", Text: docs[j], Deduplicate: &no,
					}})
				}
				if _, err := e.eng.StoreBatch(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			e.catchUp(b)
			// Queries: the first six words of 400 paragraphs spread over
			// the whole corpus (the tail of the walk is compiler rewrite
			// rules, not prose).
			var queries []string
			all, err := testcorpus.Paragraphs(size)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 400; i++ {
				w := strings.Fields(all[i*len(all)/400])
				queries = append(queries, strings.Join(w[:min(len(w), 6)], " "))
			}
			b.ReportAllocs()
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				e.call(b, "hybrid_search_context", map[string]any{"query": queries[i%len(queries)], "limit": 10})
				lat = append(lat, time.Since(t0))
			}
			reportLatency(b, lat)
		})
	}
}
