package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/contextd/contextd"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// echoTool is a tool another package could contribute: a raw MCP
// declaration and a call over the arguments object.
func echoTool(name string) Tool {
	return Tool{
		Spec: mcp.NewTool(name, mcp.WithDescription("Echo the arguments.")),
		Call: func(_ context.Context, _ *contextd.Engine, args map[string]any) (any, error) {
			if _, ok := args["fail"]; ok {
				return nil, errors.New("asked to fail")
			}
			return args, nil
		},
	}
}

func TestContextToolsOrder(t *testing.T) {
	var names []string
	for _, tl := range ContextTools() {
		names = append(names, tl.Spec.Name)
	}
	want := []string{
		"store_context", "search_context", "get_context_by_ids", "delete_context",
		"update_context", "list_threads", "get_statistics",
		"semantic_search_context", "fts_search_context", "hybrid_search_context",
		"grep_context", "navigate_context", "read_context_range",
		"plan_context_sync", "list_ingest_state", "share_context", "unshare_context", "list_context_grants",
		"store_context_batch", "update_context_batch", "delete_context_batch",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("ContextTools: got %v", names)
	}
	// Each call builds a fresh list: changing one never reaches the next.
	a := ContextTools()
	a[0].Spec.Name = "changed"
	if b := ContextTools(); b[0].Spec.Name != "store_context" {
		t.Fatalf("ContextTools shares state between calls")
	}
}

func TestOptionsTools(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	s, err := New(eng, Options{Tools: append(ContextTools(), echoTool("echo_knowledge")), DisabledTools: []string{"ECHO_KNOWLEDGE"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.ToolNames(), "echo_knowledge") {
		t.Fatalf("DISABLED_TOOLS does not reach a contributed tool: %v", s.ToolNames())
	}

	s, err = New(eng, Options{Tools: append(ContextTools()[:1], echoTool("echo_knowledge"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ToolNames(); !slices.Equal(got, []string{"store_context", "echo_knowledge"}) {
		t.Fatalf("ToolNames: got %v", got)
	}
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "test", Version: "1"},
	}}); err != nil {
		t.Fatal(err)
	}
	call := func(args map[string]any) *mcp.CallToolResult {
		var req mcp.CallToolRequest
		req.Params.Name = "echo_knowledge"
		req.Params.Arguments = args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		return r
	}
	r := call(map[string]any{"q": "x"})
	if r.IsError {
		t.Fatalf("echo: %+v", r)
	}
	if b, _ := json.Marshal(r.StructuredContent); string(b) != `{"q":"x"}` {
		t.Fatalf("echo structured: %s", b)
	}
	r = call(map[string]any{"fail": true})
	if got := resultText(t, r); !r.IsError || got != "Failed to run echo_knowledge: "+unexpectedText {
		t.Fatalf("failure: got isError=%v %q", r.IsError, got)
	}

	s, err = New(eng, Options{Tools: []Tool{}})
	if err != nil || len(s.ToolNames()) != 0 {
		t.Fatalf("empty list: %v %v", s.ToolNames(), err)
	}
}

func TestOptionsToolsInvalid(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	noCall := echoTool("no_call")
	noCall.Call = nil
	for name, tools := range map[string][]Tool{
		"twice":   {echoTool("a"), echoTool("A")},
		"no name": {echoTool("")},
		"no call": {noCall},
		"clash":   append(ContextTools(), echoTool("store_context")),
	} {
		if _, err := New(eng, Options{Tools: tools}); err == nil {
			t.Fatalf("%s: want an error", name)
		}
	}
}

// TestUnknownDisabledTools: a DISABLED_TOOLS name that matches no tool is
// reported, lower-cased and once; the knowledge tools are this package's
// own names and are not, even when the list (ContextTools) leaves them out.
func TestUnknownDisabledTools(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	s, err := New(eng, Options{DisabledTools: []string{
		"plan_context_sync", "LIST_INGEST_STATE", "search_knowledge", "container_create", "bulk_delete",
		"delete_context", " Store_Contxt ", "store_contxt", "grep_contexts"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.UnknownDisabledTools(); !slices.Equal(got, []string{"store_contxt", "grep_contexts"}) {
		t.Fatalf("UnknownDisabledTools: got %v", got)
	}
	if slices.Contains(s.ToolNames(), "delete_context") {
		t.Fatalf("delete_context registered though disabled")
	}
}
