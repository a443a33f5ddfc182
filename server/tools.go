package server

import (
	"context"

	"github.com/contextd/contextd"
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool is one MCP tool a Server serves: its declaration and its call into
// the engine. ContextTools returns the tools of the API reference and
// KnowledgeTools the eleven knowledge tools; another package builds its
// own Tools and passes them in Options.Tools next to, or instead of,
// those.
//
// The server runs every call the same way: it puts the default principal
// in ctx when the call carries none, refuses a Writes tool to the
// anonymous principal, turns the arguments into a JSON object, calls Call
// and shapes the result as JSON text plus structuredContent. A panic in
// Call becomes a tool error, never a crash.
type Tool struct {
	// Spec is the MCP declaration: name, description, input schema and
	// annotations. The name must be unique within a Server.
	Spec mcp.Tool
	// Writes marks a tool the anonymous principal may not call; the
	// server runs Engine.CheckWritable before Call sees any argument
	//
	Writes bool
	// Failure prefixes an unexpected error in the tool result, e.g.
	// "Failed to store context". A *contextd.Error is shown as is;
	// any other error is logged, and the caller reads only Failure and a
	// generic text (contextd's errors.UnexpectedText), so a driver's or a
	// package's message never reaches a client. Empty means "Failed to
	// run <name>".
	Failure string
	// Array marks a tool whose result is a JSON array: structuredContent
	// wraps it as {"result": [...]} and a nil result is [].
	Array bool
	// Available, when set, decides from the engine's state whether the
	// tool is served at all (semantic and hybrid search exist only with a
	// mode to serve them).
	Available func(eng *contextd.Engine) bool
	// Call runs one call. args is the call's arguments as a JSON object
	// (integer literals outside int64 stay json.Number); a nil result is
	// an error unless Array is set.
	Call func(ctx context.Context, eng *contextd.Engine, args map[string]any) (any, error)
}

// ContextTools returns the tools of the MCP Context Server API reference
// in reference order, the order of ToolNames and tools/list. Each call
// builds them afresh, so a caller may change the slice freely.
func ContextTools() []Tool { return toolsOf(contextTools()) }

// toolsOf builds the Tools of defs, in their order.
func toolsOf(defs []*toolDef) []Tool {
	out := make([]Tool, len(defs))
	for i, d := range defs {
		out[i] = d.tool()
	}
	return out
}

// contextTools lists the built-in tools in the order of the API reference.
func contextTools() []*toolDef {
	return []*toolDef{
		storeContextTool(),
		searchContextTool(),
		getContextByIDsTool(),
		deleteContextTool(),
		updateContextTool(),
		listThreadsTool(),
		getStatisticsTool(),
		semanticSearchContextTool(),
		ftsSearchContextTool(),
		hybridSearchContextTool(),
		grepContextTool(),
		navigateContextTool(),
		readContextRangeTool(),
		planContextSyncTool(),
		listIngestStateTool(),
		shareContextTool(),
		unshareContextTool(),
		listContextGrantsTool(),
		storeContextBatchTool(),
		updateContextBatchTool(),
		deleteContextBatchTool(),
	}
}

// ownTool reports a tool this package declares (ContextTools and
// KnowledgeTools). DISABLED_TOOLS may name one that Options.Tools leaves
// out without a warning, so a deployment file written for the full set
// needs no change.
func ownTool(name string) bool {
	for _, d := range append(contextTools(), knowledgeTools()...) {
		if d.name == name {
			return true
		}
	}
	return false
}

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

// toolDef declares one built-in tool. Each lives in its own file
// (tool_*.go) and declares its parameters once: the declaration yields both
// the advertised JSON Schema and the decoder. tool turns it into a Tool.
type toolDef struct {
	name  string
	title string
	desc  string
	kind  toolKind
	// writes marks a tool the anonymous principal may not call (Tool.Writes).
	writes bool
	// failure prefixes an unexpected error (Tool.Failure).
	failure string
	params  []param
	// array marks a tool whose result is a JSON array (Tool.Array).
	array bool
	// call decodes nothing: it receives validated args and calls the engine.
	call func(ctx context.Context, eng *contextd.Engine, a args) (any, error)
	// available decides registration from the engine's state (Tool.Available).
	available func(eng *contextd.Engine) bool
	// exactTypes selects decodeExact over decodeArgs: the knowledge tools'
	// style of arguments (no lax coercion, their own type messages).
	exactTypes bool
}

// tool builds the Tool of t: its MCP declaration and a call that
// validates and coerces the arguments against t.params before t.call.
func (t *toolDef) tool() Tool {
	return Tool{
		Spec:      t.mcpTool(),
		Writes:    t.writes,
		Failure:   t.failure,
		Array:     t.array,
		Available: t.available,
		Call: func(ctx context.Context, eng *contextd.Engine, raw map[string]any) (any, error) {
			decode := decodeArgs
			if t.exactTypes {
				decode = decodeExact
			}
			a, err := decode(t.name, t.params, raw)
			if err != nil {
				return nil, err
			}
			return t.call(ctx, eng, a)
		},
	}
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
