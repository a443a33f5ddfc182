package server

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/api"

	"github.com/mark3labs/mcp-go/mcp"
)

// Limits bound what one call may cost and how expensive calls share the
// machine with cheap ones; see api.Limits, its one definition.
type Limits = api.Limits

// Defaults of Limits.
const (
	DefaultMaxQueryChars     = api.DefaultMaxQueryChars
	DefaultSearchTimeout     = api.DefaultSearchTimeout
	DefaultHeavyQueryChars   = api.DefaultHeavyQueryChars
	DefaultHeavyQueueTimeout = api.DefaultHeavyQueueTimeout
)

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
