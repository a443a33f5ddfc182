package bench

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// queries are the texts the search tools are asked, taken from entries
// spread evenly over the corpus so that every query has answers.
type queries struct {
	fts     []string // two words of an entry (match mode ANDs them)
	natural []string // an entry's first six words (semantic and hybrid)
	grep    []string // one word of at least six letters
}

var wordRe = regexp.MustCompile(`\pL{4,}`)

func makeQueries(c *Corpus, n int) queries {
	var q queries
	for i := range n {
		t := c.Text(i * c.Len() / n)
		words := wordRe.FindAllString(t, -1)
		if len(words) == 0 {
			words = []string{"the"}
		}
		q.fts = append(q.fts, strings.Join(words[:min(2, len(words))], " "))
		f := strings.Fields(t)
		q.natural = append(q.natural, strings.Join(f[:min(6, len(f))], " "))
		g := words[0]
		for _, w := range words {
			if len(w) >= 6 {
				g = w
				break
			}
		}
		q.grep = append(q.grep, strings.Clone(g)) // not a slice of the text: the corpus is dropped
	}
	return q
}

// search is one latency measurement: n calls of tool with args(i).
type search struct {
	group, name, tool string
	n                 int
	args              func(i int) map[string]any
}

// hybridSearch is the hybrid row, named for whether the engine
// measured reranks (ENABLE_RERANKING, off by default): the bench reports
// both, the configured one with the other searches and the other on the
// same database after them.
func (w *workload) hybridSearch(reranks bool) search {
	name := "six words (both legs, reranker off)"
	if reranks {
		name = "six words (both legs, reranker on)"
	}
	q := w.queries
	return search{"hybrid_search_context", name, "hybrid_search_context", w.opt.Queries, func(i int) map[string]any {
		return map[string]any{"query": q.natural[i%len(q.natural)], "limit": 10}
	}}
}

func thread(i int) string { return fmt.Sprintf("bench-%d", i%Threads) }

func metaFilter(key, op string, v any) map[string]any {
	return map[string]any{"metadata_filters": []any{map[string]any{"key": key, "operator": op, "value": v}}}
}

// searches lists the measurements in report order, without the semantic
// and hybrid ones when h has no embeddings.
func (w *workload) searches(h *handle) []search {
	all := w.allSearches()
	if h.eng.SemanticAvailable() {
		return all
	}
	out := all[:0]
	for _, s := range all {
		if s.tool != "semantic_search_context" && s.tool != "hybrid_search_context" {
			out = append(out, s)
		}
	}
	return out
}

func (w *workload) allSearches() []search {
	n, size := w.opt.Queries, w.size
	q := w.queries
	mid := w.mid.Format(time.RFC3339Nano)
	const sc = "search_context"
	return []search{
		{"search_context", "no filter", sc, n, func(int) map[string]any { return map[string]any{} }},
		{"search_context", "thread_id (1/8)", sc, n, func(i int) map[string]any { return map[string]any{"thread_id": thread(i)} }},
		{"search_context", "source user (1/3)", sc, n, func(int) map[string]any { return map[string]any{"source": "user"} }},
		{"search_context", "tags, one of 20", sc, n, func(i int) map[string]any {
			return map[string]any{"tags": []any{fmt.Sprintf("topic-%d", i%20)}}
		}},
		{"search_context", "content_type text (all)", sc, n, func(int) map[string]any { return map[string]any{"content_type": "text"} }},
		{"search_context", "metadata status=active (indexed, 1/2)", sc, n, func(int) map[string]any {
			return map[string]any{"metadata": map[string]any{"status": "active"}}
		}},
		{"search_context", "metadata status=blocked (indexed, 1/1000)", sc, n, func(int) map[string]any {
			return map[string]any{"metadata": map[string]any{"status": "blocked"}}
		}},
		{"search_context", "metadata_filters status starts_with \"bl\" (indexed, 1/1000)", sc, n, func(int) map[string]any {
			return metaFilter("status", "starts_with", "bl")
		}},
		{"search_context", "metadata_filters priority gte 5 (not indexed, 1/2)", sc, n, func(int) map[string]any {
			return metaFilter("priority", "gte", 5)
		}},
		{"search_context", "metadata_filters seq eq (not indexed, one entry)", sc, n, func(i int) map[string]any {
			return metaFilter("seq", "eq", i*size/n)
		}},
		{"search_context", "start_date..end_date (newer half)", sc, n, func(int) map[string]any {
			return map[string]any{"start_date": mid, "end_date": time.Now().UTC().Add(time.Hour).Format(time.RFC3339Nano)}
		}},
		{"search_context", "thread_id + metadata status=active", sc, n, func(i int) map[string]any {
			return map[string]any{"thread_id": thread(i), "metadata": map[string]any{"status": "active"}}
		}},
		{"search_context", "thread_id + tags + status=blocked + start_date (combined)", sc, n, func(i int) map[string]any {
			return map[string]any{"thread_id": thread(7), "tags": []any{"topic-7", "topic-0"},
				"metadata": map[string]any{"status": "blocked"}, "start_date": "2000-01-01"}
		}},
		{"fts_search_context", "two words, match mode", "fts_search_context", n, func(i int) map[string]any {
			return map[string]any{"query": q.fts[i%len(q.fts)], "limit": 10}
		}},
		{"semantic_search_context", "six words", "semantic_search_context", n, func(i int) map[string]any {
			return map[string]any{"query": q.natural[i%len(q.natural)], "limit": 10}
		}},
		w.hybridSearch(w.reranks),
		{"grep_context", "literal word, one thread (default scan of 1,000 entries)", "grep_context", max(n/2, 1), func(i int) map[string]any {
			return map[string]any{"pattern": q.grep[i%len(q.grep)], "thread_id": thread(i)}
		}},
	}
}
