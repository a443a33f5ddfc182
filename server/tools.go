package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"

	"github.com/contextd/contextd"
	"github.com/mark3labs/mcp-go/mcp"
)

// toolKind selects the annotation hints of a tool.
type toolKind int

const (
	readOnly  toolKind = iota // reads only
	additive                  // writes, never destroys (store)
	modifying                 // overwrites (update): destructive, not idempotent
	deleting                  // deletes: destructive, idempotent
	sharing                   // adds grants: not destructive, idempotent
	revoking                  // removes grants: destructive, idempotent
)

// toolDef is one MCP tool: its declaration and the call into the engine.
// Each tool lives in its own file and registers itself from init.
type toolDef struct {
	name  string
	title string
	desc  string
	kind  toolKind
	// writes marks a tool the anonymous principal may not call; the handler
	// runs Engine.CheckWritable before it looks at any argument.
	writes bool
	// failure prefixes an unexpected error, e.g. "Failed to store context".
	failure string
	params  []param
	// array marks a tool whose result is a JSON array: structuredContent
	// wraps it as {"result": [...]}.
	array bool
	// call decodes nothing: it receives validated args and calls the engine.
	call func(ctx context.Context, eng *contextd.Engine, a args) (any, error)
	// available, when set, decides registration from the engine's state
	// (semantic and hybrid search exist only with a mode to serve them).
	available func(eng *contextd.Engine) bool
}

// toolOrder is the order of the API reference; ToolNames and tools/list
// follow it. Tools not built yet are listed so they slot in unchanged.
var toolOrder = []string{
	"store_context", "search_context", "get_context_by_ids", "delete_context",
	"update_context", "list_threads", "get_statistics",
	"semantic_search_context", "fts_search_context", "hybrid_search_context",
	"grep_context", "navigate_context", "read_context_range",
	"plan_context_sync", "list_ingest_state",
	"share_context", "unshare_context", "list_context_grants",
	"store_context_batch", "update_context_batch", "delete_context_batch",
}

var registry = map[string]*toolDef{}

// register adds a tool to the catalog; every tool file calls it from init.
func register(t *toolDef) {
	if _, dup := registry[t.name]; dup {
		panic("server: tool registered twice: " + t.name)
	}
	registry[t.name] = t
}

// catalog returns the registered tools in reference order (tools missing
// from toolOrder follow, sorted by name).
func catalog() []*toolDef {
	out := make([]*toolDef, 0, len(registry))
	seen := map[string]bool{}
	for _, n := range toolOrder {
		if t, ok := registry[n]; ok {
			out = append(out, t)
			seen[n] = true
		}
	}
	var rest []string
	for n := range registry {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range rest {
		out = append(out, registry[n])
	}
	return out
}

// mcpTool builds the MCP declaration of t.
func (t *toolDef) mcpTool() mcp.Tool {
	tool := mcp.NewToolWithRawSchema(t.name, t.desc, inputSchema(t.params))
	hint := func(b bool) *bool { return &b }
	a := mcp.ToolAnnotation{Title: t.title, OpenWorldHint: hint(false)}
	switch t.kind {
	case readOnly:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(true), hint(false), hint(true)
	case additive:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(false), hint(false)
	case modifying:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(true), hint(false)
	case deleting, revoking:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(true), hint(true)
	case sharing:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(false), hint(true)
	}
	tool.Annotations = a
	return tool
}

// handle runs one call of t: principal, write check, argument decoding,
// engine call, result shaping. It never returns a Go error: every failure
// is a tool result with isError set.
func (s *Server) handle(ctx context.Context, t *toolDef, req mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("tool panicked", "tool", t.name, "panic", r, "stack", string(debug.Stack()))
			res = s.failed(t, fmt.Errorf("internal error: %v", r))
		}
	}()
	if p, ok := contextd.PrincipalFrom(ctx); !ok || p.ID == "" {
		ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: s.principal})
	}
	if t.writes {
		if err := s.eng.CheckWritable(ctx, t.name); err != nil {
			return s.failed(t, err), nil
		}
	}
	raw := req.Params.Arguments
	if m, ok := exactArguments(req.Params.RawArguments); ok {
		raw = m
	}
	a, err := decodeArgs(t.name, t.params, raw)
	if err != nil {
		return s.failed(t, err), nil
	}
	v, err := t.call(ctx, s.eng, a)
	if err != nil {
		return s.failed(t, err), nil
	}
	if isNil(v) {
		if !t.array {
			return s.failed(t, errors.New("the engine returned no result")), nil
		}
		v = []any{}
	}
	text, err := marshalJSON(v)
	if err != nil {
		return s.failed(t, fmt.Errorf("encode result: %w", err)), nil
	}
	if t.array {
		return mcp.NewToolResultStructured(map[string]any{"result": json.RawMessage(text)}, string(text)), nil
	}
	return mcp.NewToolResultStructured(json.RawMessage(text), string(text)), nil
}

// failed maps an error to a tool error result: engine errors and argument
// errors carry the reference text as is; anything else is unexpected and
// wrapped with the tool's failure prefix.
func (s *Server) failed(t *toolDef, err error) *mcp.CallToolResult {
	var ce *contextd.Error
	var ae *argError
	switch {
	case errors.As(err, &ce):
		s.log.Debug("tool error", "tool", t.name, "error", err)
		return mcp.NewToolResultError(err.Error())
	case errors.As(err, &ae):
		s.log.Debug("invalid arguments", "tool", t.name, "param", ae.Param, "error", ae.Msg)
		return mcp.NewToolResultError(err.Error())
	}
	s.log.Error("tool failed", "tool", t.name, "error", err)
	return mcp.NewToolResultError(t.failure + ": " + err.Error())
}

// marshalJSON encodes v without HTML escaping (text such as <mark> stays
// readable) and without the trailing newline.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
