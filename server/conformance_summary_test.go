package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/httpjson"
	"github.com/contextd/contextd/model/openai"
)

// countingSummarizer counts the calls reaching a real summarizer.
type countingSummarizer struct {
	inner contextd.Summarizer
	calls atomic.Int32
}

func (c *countingSummarizer) Summarize(ctx context.Context, prompt, text string) (string, error) {
	c.calls.Add(1)
	return c.inner.Summarize(ctx, prompt, text)
}

// withSummarizer configures summary generation with s (and node summaries
// for sections of at least nodeMin characters).
func withSummarizer(s contextd.Summarizer, nodeMin int) envOption {
	return withConfig(func(c *contextd.Config) {
		c.Summary = contextd.SummaryConfig{Summarizer: s, Enabled: true, Provider: "builtin", Model: "extractive"}
		c.IndexTree.MinContentLength = &nodeMin
	})
}

// longText is a document of more than 500 characters with sections.
var longText = `# Billing migration

The team decided to migrate the billing database from MySQL to PostgreSQL in March. The migration uses logical replication so the billing service keeps running during the PostgreSQL switch. Replication lag on the billing database must stay below five seconds before the cutover.

## Owners

Alice owns the PostgreSQL schema conversion for the billing tables. Bob writes the rollback plan in case replication to PostgreSQL fails during the billing cutover.

## Misc

Lunch was pizza on Friday. The weather was nice.`

func TestConformanceSummary(t *testing.T) {
	counter := &countingSummarizer{inner: builtin.Summarizer{}}
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("builtin summary on store, search and get", func(t *testing.T) {
			res := env.call(t, "alice", "store_context", M{"thread_id": "s1", "source": "agent", "text": longText}).ok(t)
			wantEqual(t, "message", str(t, res, "message"), "Context stored (summary generated)")
			id := str(t, res, "context_id")
			r := objs(t, arr(t, env.search(t, "alice", M{"thread_id": "s1"}), "results"))[0]
			sum := str(t, r, "summary")
			if sum == "" || strings.Contains(sum, "\n") || !strings.Contains(sum, "PostgreSQL") || strings.Contains(sum, "pizza") {
				t.Fatalf("summary is not one paragraph of central sentences: %q", sum)
			}
			for _, s := range strings.SplitAfter(sum, ". ") {
				if !strings.Contains(longText, strings.TrimSpace(s)) {
					t.Fatalf("summary sentence %q is not drawn from the text", s)
				}
			}
			wantEqual(t, "get summary", str(t, env.getOne(t, "alice", id), "summary"), sum)
			nav := env.navigate(t, "alice", M{"context_id": id})
			wantEqual(t, "root summary", str(t, obj(t, nav, "root"), "summary"), sum)

			short := env.call(t, "alice", "store_context", M{"thread_id": "s1", "source": "user", "text": "too short to summarize"}).ok(t)
			wantEqual(t, "short message", str(t, short, "message"), "Context stored")
			wantEqual(t, "short summary", str(t, env.getOne(t, "alice", str(t, short, "context_id")), "summary"), "")

			st := obj(t, env.stats(t, "alice"), "summary")
			wantEqual(t, "summary_count", num(t, st, "summary_count"), 1)
			wantEqual(t, "coverage", num(t, st, "coverage_percentage"), 50)
			wantEqual(t, "available", boolean(t, st, "available"), true)
			wantEqual(t, "min length", num(t, st, "min_content_length"), 500)
		})

		t.Run("dedup merge preserves the summary without regenerating", func(t *testing.T) {
			env.storeText(t, "alice", "s2", "user", longText)
			before := counter.calls.Load()
			res := env.call(t, "alice", "store_context", M{"thread_id": "s2", "source": "user", "text": longText}).ok(t)
			wantEqual(t, "message", str(t, res, "message"), "Context updated (summary preserved)")
			wantEqual(t, "no summarizer call", counter.calls.Load(), before)
		})

		t.Run("update regenerates or clears", func(t *testing.T) {
			id := env.storeText(t, "alice", "s3", "user", longText)
			res := env.call(t, "alice", "update_context", M{"context_id": id, "text": longText + "\n\nPostgreSQL cutover happens on a Sunday night."}).ok(t)
			wantSlice(t, "fields", strs(t, res, "updated_fields"), []string{"text_content", "summary"})
			wantEqual(t, "message", str(t, res, "message"), "Successfully updated 2 field(s) (summary regenerated)")
			res = env.call(t, "alice", "update_context", M{"context_id": id, "text": "now short"}).ok(t)
			wantSlice(t, "fields", strs(t, res, "updated_fields"), []string{"text_content"})
			wantEqual(t, "message", str(t, res, "message"), "Successfully updated 1 field(s) (summary cleared)")
			wantEqual(t, "summary", str(t, env.getOne(t, "alice", id), "summary"), "")
			nav := env.navigate(t, "alice", M{"context_id": id})
			if obj(t, nav, "root")["summary"] != nil {
				t.Fatalf("root summary of an entry without summary is %v, want null", obj(t, nav, "root")["summary"])
			}
		})

		t.Run("batches generate before their transaction", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"entries": []M{
				{"thread_id": "s5", "source": "user", "text": longText},
				{"thread_id": "s5", "source": "agent", "text": "short"},
			}}).ok(t)
			rows := objs(t, arr(t, res, "results"))
			long, short := str(t, rows[0], "context_id"), str(t, rows[1], "context_id")
			if str(t, env.getOne(t, "alice", long), "summary") == "" || str(t, env.getOne(t, "alice", short), "summary") != "" {
				t.Fatalf("batch summaries: long %q short %q", env.getOne(t, "alice", long)["summary"], env.getOne(t, "alice", short)["summary"])
			}
			res = env.call(t, "alice", "update_context_batch", M{"updates": []M{{"context_id": short, "text": longText + "\n\nMore PostgreSQL billing notes."}}}).ok(t)
			wantSlice(t, "fields", strs(t, objs(t, arr(t, res, "results"))[0], "updated_fields"), []string{"text_content", "summary"})
			if str(t, env.getOne(t, "alice", short), "summary") == "" {
				t.Fatalf("batch update left no summary")
			}
		})

		t.Run("node summaries", func(t *testing.T) {
			id := env.storeText(t, "alice", "s4", "agent", longText)
			nav := env.navigate(t, "alice", M{"context_id": id, "include_node_summaries": true})
			with := 0
			walkNodes(t, obj(t, nav, "root"), func(n M) {
				if s, ok := n["summary"].(string); ok && s != "" {
					with++
				}
			})
			if with == 0 {
				t.Fatalf("no node carries a summary: %s", mustJSON(nav))
			}
			plain := env.navigate(t, "alice", M{"context_id": id})
			walkNodes(t, obj(t, plain, "root"), func(n M) {
				if n["summary"] != nil {
					t.Fatalf("node summary attached without include_node_summaries")
				}
			})
			it := obj(t, env.stats(t, "alice"), "index_tree")
			wantEqual(t, "enabled", boolean(t, it, "enabled"), true)
			if num(t, it, "node_count") < float64(with) {
				t.Fatalf("index_tree.node_count %v < %d", it["node_count"], with)
			}
			wantEqual(t, "bob sees none", num(t, obj(t, env.stats(t, "bob"), "index_tree"), "node_count"), 0)
			before := num(t, it, "node_count")
			env.call(t, "alice", "update_context", M{"context_id": id, "text": "# Tiny\nno sections long enough"}).ok(t)
			after := num(t, obj(t, env.stats(t, "alice"), "index_tree"), "node_count")
			if after >= before {
				t.Fatalf("node summaries not replaced on text change: %v -> %v", before, after)
			}
		})
	}, withSummarizer(counter, 50), withIncludeSummary(), withNoEmbedder())
}

func TestConformanceNodeSummariesDisabled(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "nd", "user", longText)
		nav := env.navigate(t, "alice", M{"context_id": id, "include_node_summaries": true})
		if obj(t, nav, "root")["summary"] == nil {
			t.Fatalf("root lost the entry summary")
		}
		walkNodes(t, obj(t, nav, "root"), func(n M) {
			if n["summary"] != nil {
				t.Fatalf("node summary with ENABLE_INDEX_TREE_NODE_SUMMARIES=false: %v", n["summary"])
			}
		})
		it := obj(t, env.stats(t, "alice"), "index_tree")
		wantEqualJSON(t, "index_tree", it, `{"enabled":false,"node_count":0}`)
	}, withSummarizer(builtin.Summarizer{}, 50), withConfig(func(c *contextd.Config) { c.IndexTree.Disabled = true }))
}

// openAIFailing is a fake server speaking the Chat Completions API that
// always answers 500; the counter counts its calls since the last reset.
func openAIFailing(t *testing.T) (*openai.Summarizer, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := fakeapi.New(t, fakeapi.Config{Path: "/v1/chat/completions", Handler: func(fakeapi.Request) fakeapi.Reply {
		calls.Add(1)
		return fakeapi.Reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"The server had an error","type":"server_error"}}`}
	}})
	return &openai.Summarizer{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "gpt-test",
		Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond, Timeout: 5 * time.Second}}, &calls
}

func TestConformanceSummaryProviderFailure(t *testing.T) {
	prov, calls := openAIFailing(t)
	const want = `Generation failed after exhausting configured retries: summary: StatusError: HTTP 500: {"error":{"message":"The server had an error","type":"server_error"}}`
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("store aborts and stores nothing", func(t *testing.T) {
			calls.Store(0)
			wantEqual(t, "error", env.call(t, "alice", "store_context", M{"thread_id": "f1", "source": "user", "text": longText}).err(t), want)
			if calls.Load() != 3 {
				t.Fatalf("provider called %d times, want 3 attempts", calls.Load())
			}
			wantEqual(t, "stored", env.total(t, "alice"), 0)
			r := env.call(t, "alice", "store_context_batch", M{"entries": []any{M{"thread_id": "f1", "source": "user", "text": longText}}})
			wantEqual(t, "batch error", r.err(t), want)
			wantEqual(t, "stored after batch", env.total(t, "alice"), 0)
		})
		t.Run("short text needs no provider", func(t *testing.T) {
			env.storeText(t, "alice", "f2", "user", "short")
			wantEqual(t, "stored", env.total(t, "alice"), 1)
		})
		t.Run("non-atomic batch fails only the long item", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
				{"thread_id": "f4", "source": "user", "text": longText},
				{"thread_id": "f4", "source": "agent", "text": "short one"},
			}}).ok(t)
			rows := objs(t, arr(t, res, "results"))
			wantEqual(t, "first error", str(t, rows[0], "error"), want)
			wantEqual(t, "second ok", boolean(t, rows[1], "success"), true)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 1)
			id := str(t, rows[1], "context_id")
			r := env.call(t, "alice", "update_context_batch", M{"updates": []M{{"context_id": id, "text": longText}}})
			wantEqual(t, "atomic update batch", r.err(t), want)
			wantEqual(t, "text kept", str(t, env.getOne(t, "alice", id), "text_content"), "short one")
		})

		t.Run("update aborts and leaves the entry", func(t *testing.T) {
			id := env.storeText(t, "alice", "f3", "user", "original")
			wantEqual(t, "error", env.call(t, "alice", "update_context", M{"context_id": id, "text": longText}).err(t), want)
			wantEqual(t, "text", str(t, env.getOne(t, "alice", id), "text_content"), "original")
		})
	}, withSummarizer(prov, 500))
}
