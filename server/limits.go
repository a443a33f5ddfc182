package server

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// Limits bound what one call may cost and how expensive calls share the
// machine with cheap ones. The zero value is the defaults.
//
// Every ranked search (search_context, fts_search_context,
// semantic_search_context, hybrid_search_context, search_knowledge) runs
// under a deadline, and its query is at most MaxQueryChars code points.
// The engine bounds the rest of a search's work (index.Options,
// knowledge.Options: the terms scored, the candidates visited), so the
// deadline only stops what the bounds did not foresee: a loaded machine,
// a store far larger than they were measured on.
//
// Heavy calls (a ranked query of more than HeavyQueryChars code points,
// grep_context, upload_file, bulk_upload) run at most HeavyCalls at a
// time; one that waits longer than HeavyQueueTimeout for its turn is
// refused. Three 10,000-character hybrid queries at once otherwise held
// both cores of a 2-core machine, and ordinary calls of other clients
// waited behind them; with one heavy call at a time the other core stays
// free for them.
type Limits struct {
	// MaxQueryChars caps a ranked search's query (SEARCH_MAX_QUERY_CHARS;
	// 0 = DefaultMaxQueryChars, the most the tools' schemas allow).
	MaxQueryChars int
	// SearchTimeout is a ranked search's deadline, counted from when it
	// starts running, the wait for the in-process indexes to apply the
	// latest writes included (SEARCH_TIMEOUT_MS; 0 = DefaultSearchTimeout,
	// negative = none).
	SearchTimeout time.Duration
	// HeavyQueryChars is the query length past which a ranked search is
	// heavy (HEAVY_QUERY_CHARS; 0 = DefaultHeavyQueryChars).
	HeavyQueryChars int
	// HeavyCalls is how many heavy calls run at once (HEAVY_CALLS;
	// 0 = half the CPUs the process may use, at least one; negative =
	// no pool).
	HeavyCalls int
	// HeavyQueueTimeout bounds a heavy call's wait for its turn
	// (HEAVY_QUEUE_TIMEOUT_MS; 0 = DefaultHeavyQueueTimeout).
	HeavyQueueTimeout time.Duration
}

// Defaults of Limits.
const (
	DefaultMaxQueryChars     = 10000
	DefaultSearchTimeout     = 30 * time.Second
	DefaultHeavyQueryChars   = 1000
	DefaultHeavyQueueTimeout = 10 * time.Second
)

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.MaxQueryChars <= 0 || l.MaxQueryChars > DefaultMaxQueryChars {
		l.MaxQueryChars = DefaultMaxQueryChars
	}
	if l.SearchTimeout == 0 {
		l.SearchTimeout = DefaultSearchTimeout
	}
	if l.HeavyQueryChars <= 0 {
		l.HeavyQueryChars = DefaultHeavyQueryChars
	}
	if l.HeavyCalls == 0 {
		l.HeavyCalls = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if l.HeavyQueueTimeout <= 0 {
		l.HeavyQueueTimeout = DefaultHeavyQueueTimeout
	}
	return l
}

// rankedTools are the searches the query cap and the deadline apply to.
var rankedTools = map[string]bool{
	"search_context": true, "fts_search_context": true, "semantic_search_context": true,
	"hybrid_search_context": true, "search_knowledge": true,
}

// heavyTools are heavy whatever their arguments.
var heavyTools = map[string]bool{"grep_context": true, "upload_file": true, "bulk_upload": true}

// errSearchTimeout is the cause of a ranked search's own deadline.
var errSearchTimeout = errors.New("search deadline")

// gate holds the heavy calls' slots.
type gate struct {
	slots chan struct{} // nil: no pool
}

func newGate(l Limits) *gate {
	g := &gate{}
	if l.HeavyCalls > 0 {
		g.slots = make(chan struct{}, l.HeavyCalls)
	}
	return g
}

// queryChars returns the length in code points of a call's string query
// argument, -1 when it has none.
func queryChars(in map[string]any) int {
	q, ok := in["query"].(string)
	if !ok {
		return -1
	}
	return utf8.RuneCountInString(q)
}

// admit applies the limits to one call before it runs: the query cap,
// the heavy pool and the deadline. It returns the context the call runs
// under and a release to call when it ends, or the result refusing it.
func (s *Server) admit(ctx context.Context, name string, in map[string]any) (context.Context, func(), *mcp.CallToolResult) {
	l := s.limits
	ranked := rankedTools[name]
	n := queryChars(in)
	// The length only: the query itself is never repeated back, in the
	// texts the schemas' bound and the knowledge service answer at the
	// default (which checks the container first).
	switch {
	case !ranked || n <= l.MaxQueryChars:
	case name != "search_knowledge":
		return ctx, nil, mcp.NewToolResultError(fmt.Sprintf("Parameter 'query' must be at most %d characters, got %d", l.MaxQueryChars, n))
	case l.MaxQueryChars < DefaultMaxQueryChars:
		return ctx, nil, mcp.NewToolResultError(fmt.Sprintf("Query must not exceed %d characters.", l.MaxQueryChars))
	}
	release := func() {}
	if s.gate.slots != nil && (heavyTools[name] || ranked && n > l.HeavyQueryChars) {
		t := time.NewTimer(l.HeavyQueueTimeout)
		defer t.Stop()
		select {
		case s.gate.slots <- struct{}{}:
			release = func() { <-s.gate.slots }
		case <-t.C:
			return ctx, nil, mcp.NewToolResultError(fmt.Sprintf(
				"The server is busy with other long-running calls (long queries, grep, uploads; at most %d at a time, HEAVY_CALLS) and this one waited %s (HEAVY_QUEUE_TIMEOUT_MS) without its turn; nothing was done, retry later or shorten the query",
				cap(s.gate.slots), l.HeavyQueueTimeout))
		case <-ctx.Done():
			return ctx, nil, s.failedContext(name, ctx.Err())
		}
	}
	if ranked && l.SearchTimeout > 0 {
		ctx, cancel := context.WithTimeoutCause(ctx, l.SearchTimeout, errSearchTimeout)
		return ctx, func() { cancel(); release() }, nil
	}
	return ctx, release, nil
}

// timedOut returns the result of a ranked search stopped by its own
// deadline, nil when ctx did not end that way.
func (s *Server) timedOut(ctx context.Context, t *Tool) *mcp.CallToolResult {
	if !errors.Is(context.Cause(ctx), errSearchTimeout) {
		return nil
	}
	s.log.Warn("search stopped at its deadline", "tool", t.Spec.Name, "timeout", s.limits.SearchTimeout)
	return mcp.NewToolResultError(fmt.Sprintf(
		"%s: the search did not finish within %s (SEARCH_TIMEOUT_MS) and was stopped; shorten the query or narrow it with filters",
		t.Failure, s.limits.SearchTimeout))
}

// failedContext answers a call whose client went away while it waited.
func (s *Server) failedContext(name string, err error) *mcp.CallToolResult {
	if errors.Is(err, context.DeadlineExceeded) {
		return mcp.NewToolResultError("Failed to run " + name + ": the request timed out")
	}
	return mcp.NewToolResultError("Failed to run " + name + ": the request was cancelled")
}
