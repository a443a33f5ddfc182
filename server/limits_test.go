package server

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// limitsServer serves every tool with small limits.
func limitsServer(t *testing.T, l Limits) (*Server, map[string]Tool) {
	t.Helper()
	s := newTestServer(t, Options{Tools: append(ContextTools(), KnowledgeTools()...), Limits: l})
	tools := map[string]Tool{}
	for _, tl := range append(ContextTools(), KnowledgeTools()...) {
		tools[tl.Spec.Name] = tl
	}
	return s, tools
}

func limitsCall(t *testing.T, s *Server, tools map[string]Tool, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	tl := tools[name]
	r, err := s.handle(context.Background(), &tl, callReq(args))
	if err != nil {
		t.Fatalf("%s: Go error %v", name, err)
	}
	return r, resultText(t, r)
}

// rankedArgs are arguments of each ranked search with query q.
func rankedArgs(q string) map[string]map[string]any {
	return map[string]map[string]any{
		"fts_search_context":      {"query": q},
		"semantic_search_context": {"query": q},
		"hybrid_search_context":   {"query": q},
		"search_knowledge":        {"query": q, "containerId": "docs"},
	}
}

// TestQueryCapEnforced: SEARCH_MAX_QUERY_CHARS refuses a longer query of
// every ranked search, naming the parameter and the cap, never repeating
// the query; a query at the cap runs. At the default the texts are the
// schemas' and the knowledge reference's.
func TestQueryCapEnforced(t *testing.T) {
	s, tools := limitsServer(t, Limits{MaxQueryChars: 20})
	long := strings.Repeat("ünïcode ", 3) // 24 code points
	for name, a := range rankedArgs(long) {
		if _, ok := tools[name]; !ok || !slices.Contains(s.ToolNames(), name) {
			continue // not served on this engine
		}
		r, text := limitsCall(t, s, tools, name, a)
		want := "Parameter 'query' must be at most 20 characters, got 24"
		if name == "search_knowledge" {
			want = "Query must not exceed 20 characters."
		}
		if !r.IsError || text != want {
			t.Fatalf("%s: %v %q, want the error %q", name, r.IsError, text, want)
		}
	}
	for name, a := range rankedArgs(strings.Repeat("x", 20)) {
		if !slices.Contains(s.ToolNames(), name) {
			continue
		}
		if r, text := limitsCall(t, s, tools, name, a); r.IsError && strings.Contains(text, "20 characters") {
			t.Fatalf("%s refused a query at the cap: %s", name, text)
		}
	}
	// The default is the schemas' 10,000, semantic search included.
	s, tools = limitsServer(t, Limits{})
	r, text := limitsCall(t, s, tools, "semantic_search_context", map[string]any{"query": strings.Repeat("a", 10001)})
	if !r.IsError || !strings.Contains(text, "at most 10000 characters") || strings.Contains(text, "aaaa") {
		t.Fatalf("semantic over the default cap: %v %.200q", r.IsError, text)
	}
}

// TestSearchDeadlineEnforced: a ranked search that outlives
// SEARCH_TIMEOUT_MS is stopped with an error naming the setting (here a
// deadline that has passed before the search starts).
func TestSearchDeadlineEnforced(t *testing.T) {
	s, tools := limitsServer(t, Limits{SearchTimeout: time.Nanosecond})
	args := rankedArgs("index budget")
	args["search_context"] = map[string]any{}
	checked := 0
	for name, a := range args {
		if !slices.Contains(s.ToolNames(), name) {
			continue
		}
		r, text := limitsCall(t, s, tools, name, a)
		if !r.IsError || !strings.Contains(text, "did not finish within 1ns (SEARCH_TIMEOUT_MS)") {
			t.Fatalf("%s: %v %q, want the deadline's error", name, r.IsError, text)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("%d ranked searches served (%v), want at least search_context, fts and knowledge", checked, s.ToolNames())
	}
	// Other tools have no search deadline.
	if r, text := limitsCall(t, s, tools, "list_threads", map[string]any{}); r.IsError {
		t.Fatalf("list_threads: %s", text)
	}
}

// TestHeavyCallsQueue: with every heavy slot taken, a heavy call (a long
// query, grep) waits at most HEAVY_QUEUE_TIMEOUT_MS and is refused, while
// a short search runs at once; a freed slot admits the next heavy call.
func TestHeavyCallsQueue(t *testing.T) {
	s, tools := limitsServer(t, Limits{HeavyCalls: 1, HeavyQueryChars: 10, HeavyQueueTimeout: time.Millisecond})
	s.gate.slots <- struct{}{} // a heavy call holds the only slot
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"fts_search_context", map[string]any{"query": "eleven char"}},
		{"grep_context", map[string]any{"pattern": "x"}},
	} {
		r, text := limitsCall(t, s, tools, c.name, c.args)
		if !r.IsError || !strings.Contains(text, "HEAVY_QUEUE_TIMEOUT_MS") || !strings.Contains(text, "at most 1 at a time") {
			t.Fatalf("%s while the slot is taken: %v %q", c.name, r.IsError, text)
		}
	}
	if r, text := limitsCall(t, s, tools, "fts_search_context", map[string]any{"query": "ten chars!"}); r.IsError {
		t.Fatalf("a short search waited for the heavy slot: %s", text)
	}
	<-s.gate.slots
	if r, text := limitsCall(t, s, tools, "fts_search_context", map[string]any{"query": "eleven char"}); r.IsError {
		t.Fatalf("heavy call with a free slot: %s", text)
	}
	if n := len(s.gate.slots); n != 0 {
		t.Fatalf("%d slots still held after the calls ended", n)
	}
}

// TestLimitsDefaults: the zero Limits are the documented defaults.
func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.WithDefaults()
	if l.MaxQueryChars != 10000 || l.SearchTimeout != 30*time.Second || l.HeavyQueryChars != 1000 ||
		l.HeavyCalls < 1 || l.HeavyQueueTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v", l)
	}
	if l := (Limits{MaxQueryChars: 50000, HeavyCalls: -1, SearchTimeout: -1}).WithDefaults(); l.MaxQueryChars != 10000 || l.HeavyCalls != -1 || l.SearchTimeout != -1 {
		t.Fatalf("bounds: %+v", l)
	}
	if g := newGate(Limits{HeavyCalls: -1}.WithDefaults()); g.slots != nil {
		t.Fatal("HeavyCalls < 0 still pools")
	}
}

// TestUnknownParameterAbbreviated: an unknown argument's name is repeated
// back at most 64 characters long.
func TestUnknownParameterAbbreviated(t *testing.T) {
	s, tools := limitsServer(t, Limits{})
	long := strings.Repeat("k", 100000)
	r, text := limitsCall(t, s, tools, "fts_search_context", map[string]any{"query": "x", long: 1})
	if !r.IsError || !strings.Contains(text, "Unexpected parameter '"+strings.Repeat("k", 64)+"...'") || len(text) > 2000 {
		t.Fatalf("%v %.300q (%d bytes)", r.IsError, text, len(text))
	}
}
