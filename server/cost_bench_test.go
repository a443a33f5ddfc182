package server_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/server"
)

// costEnv is newBenchEnv's engine (the default configuration) holding
// 20,000 Go comment paragraphs as context entries and, with costKnowledge,
// as 20,000 knowledge chunks, served with limits.
type costEnv struct {
	*benchEnv
	ps []string
}

const costEntries = 20_000

func newCostEnv(b *testing.B, knowledge bool) *costEnv {
	ps, err := testcorpus.Paragraphs(costEntries)
	if err != nil {
		b.Fatal(err)
	}
	e := &costEnv{benchEnv: newBenchEnv(b), ps: ps}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
	no := false
	for i := 0; i < len(ps); i += 100 {
		req := contextd.StoreBatchRequest{}
		for j := i; j < min(i+100, len(ps)); j++ {
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: fmt.Sprintf("t%d", j%50), Source: "agent", Text: ps[j], Deduplicate: &no}})
		}
		if _, err := e.eng.StoreBatch(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	e.catchUp(b)
	if knowledge {
		c := e.client(b, server.Limits{})
		costCall(b, c, "container_create", map[string]any{"name": "bench"})
		// 2,000 Markdown files of ten sections: one chunk a section.
		for k := range 20 {
			var files []map[string]any
			for i := range 100 {
				n := k*100 + i
				var sb strings.Builder
				for s := range 10 {
					fmt.Fprintf(&sb, "## Section %d\n\n%s\n\n", s, ps[n*10+s])
				}
				files = append(files, map[string]any{"filename": fmt.Sprintf("r%04d.md", n), "content": sb.String()})
			}
			costCall(b, c, "bulk_upload", map[string]any{"containerId": "bench", "files": kJSON(b, files)})
		}
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := e.eng.WaitKnowledgeIdle(wctx); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// client serves every tool over the env's engine with limits l.
func (e *costEnv) client(b *testing.B, l server.Limits) *client.Client {
	srv, err := server.New(e.eng, server.Options{DefaultPrincipal: "local", Limits: l,
		Tools: append(server.ContextTools(), server.KnowledgeTools()...)})
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
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
	return c
}

// costCall runs one call and returns its text; a tool error fails b.
func costCall(b *testing.B, c *client.Client, tool string, args map[string]any) string {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(mcp.TextContent).Text
	}
	if res.IsError || strings.HasPrefix(text, "Error:") {
		b.Fatalf("%s failed: %.300s", tool, text)
	}
	return text
}

// longQueries are 10,000-character queries of three kinds: running text
// (paragraphs of the corpus), the 60 most frequent words repeated (every
// entry matches, the OR form visits the whole collection), and 3,000
// distinct words; prefix adds the 26 letters repeated as prefixes.
func longQueries(ps []string) map[string]string {
	var text strings.Builder
	for i := 7; text.Len() < 9980; i += 37 {
		for _, w := range strings.Fields(ps[i%len(ps)]) {
			if text.Len()+len(w)+1 > 10000 {
				break
			}
			if text.Len() > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(w)
		}
	}
	return map[string]string{
		"text":     text.String(),
		"common":   frequentWords(ps, 60),
		"distinct": frequentWords(ps, 3000),
		"letters":  strings.Repeat("a b c d e f g h i j k l m n o p q r s t u v w x y z ", 384)[:10000],
	}
}

// frequentWords repeats the top most frequent words of ps (longer than
// three letters) to 10,000 characters.
func frequentWords(ps []string, top int) string {
	cnt := map[string]int{}
	for _, p := range ps {
		for _, w := range strings.Fields(strings.ToLower(p)) {
			if w = strings.Trim(w, ".,;:()'\"`"); len(w) > 3 {
				cnt[w]++
			}
		}
	}
	words := make([]string, 0, len(cnt))
	for w := range cnt {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		return cnt[words[i]] > cnt[words[j]] || cnt[words[i]] == cnt[words[j]] && words[i] < words[j]
	})
	var sb strings.Builder
	for i := 0; ; i++ {
		w := words[i%min(top, len(words))]
		if sb.Len()+len(w)+1 > 10000 {
			break
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
	}
	return sb.String()
}

// BenchmarkLongQuery measures 10,000-character queries to every ranked
// search over 20,000 context entries and search_knowledge over 20,000
// knowledge chunks, at the default limits: ms-max is the slowest call of
// an op (each query kind once, each fts mode), which the cost bound keeps
// under 2,000 ms. cpu-ms-max is the process's CPU time of that call
// (the machine may be shared; the CPU time is not).
func BenchmarkLongQuery(b *testing.B) {
	e := newCostEnv(b, true)
	c := e.client(b, server.Limits{})
	qs := longQueries(e.ps)
	type call struct {
		tool string
		args map[string]any
	}
	calls := map[string][]call{}
	for kind, q := range qs {
		calls["semantic_search_context"] = append(calls["semantic_search_context"], call{"semantic_search_context", map[string]any{"query": q}})
		calls["hybrid_search_context"] = append(calls["hybrid_search_context"], call{"hybrid_search_context", map[string]any{"query": q}})
		for _, mode := range []string{"match", "boolean", "phrase", "prefix"} {
			if kind == "letters" && mode != "prefix" {
				continue
			}
			calls["fts_search_context"] = append(calls["fts_search_context"], call{"fts_search_context", map[string]any{"query": q, "mode": mode}})
		}
		for _, mode := range []string{"Keyword", "Semantic", "Hybrid"} {
			calls["search_knowledge"] = append(calls["search_knowledge"], call{"search_knowledge", map[string]any{"containerId": "bench", "query": q, "mode": mode}})
		}
	}
	for _, tool := range []string{"fts_search_context", "semantic_search_context", "hybrid_search_context", "search_knowledge"} {
		b.Run(tool, func(b *testing.B) {
			var worst, worstCPU time.Duration
			for b.Loop() {
				for _, cl := range calls[tool] {
					t0, cpu0 := time.Now(), processCPU()
					costCall(b, c, cl.tool, cl.args)
					worst, worstCPU = max(worst, time.Since(t0)), max(worstCPU, processCPU()-cpu0)
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "ms-max")
			b.ReportMetric(float64(worstCPU.Microseconds())/1000, "cpu-ms-max")
		})
	}
}

// BenchmarkFairSharing measures an ordinary search (a three-word
// fts_search_context) while three clients each run 10,000-character
// hybrid searches back to back: ms-p99 is its 99th percentile over the
// op's calls, with the heavy pool (the default: half the CPUs) and
// without it (HEAVY_CALLS=0), side by side in one run.
func BenchmarkFairSharing(b *testing.B) {
	e := newCostEnv(b, false)
	heavy := longQueries(e.ps)["common"]
	for _, pool := range []struct {
		name   string
		limits server.Limits
	}{{"pool", server.Limits{}}, {"nopool", server.Limits{HeavyCalls: -1}}} {
		b.Run(pool.name, func(b *testing.B) {
			c := e.client(b, pool.limits)
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			heavyDone := make([]int, 3)
			for g := range 3 {
				hc := e.client(b, pool.limits)
				wg.Go(func() {
					for ctx.Err() == nil {
						req := mcp.CallToolRequest{}
						req.Params.Name, req.Params.Arguments = "hybrid_search_context", map[string]any{"query": heavy}
						if res, err := hc.CallTool(ctx, req); err == nil && !res.IsError {
							heavyDone[g]++
						}
					}
				})
			}
			words := []string{"buffer", "reader", "returns", "error", "value", "slice", "string", "bytes", "file", "time"}
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				q := words[i%10] + " " + words[(i/10)%10] + " " + words[(i/100)%10]
				t0 := time.Now()
				costCall(b, c, "fts_search_context", map[string]any{"query": q})
				lat = append(lat, time.Since(t0))
			}
			stop()
			wg.Wait()
			reportLatency(b, lat)
			b.ReportMetric(float64(heavyDone[0]+heavyDone[1]+heavyDone[2]), "heavy-calls")
		})
	}
}
