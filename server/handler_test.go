package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// openEngine opens an engine on a private in-memory database, for tests
// of the transport that store little or nothing.
func openEngine(t *testing.T, cfg contextd.Config) *contextd.Engine {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: ":memory:"})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	cfg.Store = st
	cfg.FTS.Progress = io.Discard
	eng, err := contextd.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { _ = eng.Close(); _ = st.Close() })
	return eng
}

func newTestServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := New(openEngine(t, contextd.Config{AnonymousPrincipal: "anon"}), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// handleDef runs one call of the built-in or test tool td.
func (s *Server) handleDef(ctx context.Context, td *toolDef, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	t := td.tool()
	return s.handle(ctx, &t, req)
}

func callReq(args map[string]any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Arguments = args
	return req
}

func resultText(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 {
		t.Fatalf("want one content item, got %#v", r)
	}
	tc, ok := r.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", r.Content[0])
	}
	return tc.Text
}

func TestHandleErrorMapping(t *testing.T) {
	s := newTestServer(t, Options{})
	tests := []struct {
		name    string
		call    func() (any, error)
		want    string
		isError bool
	}{
		{"engine error verbatim", func() (any, error) {
			return nil, &contextd.Error{Kind: contextd.ErrNotFound, Msg: "Context entry with ID x not found"}
		}, "Context entry with ID x not found", true},
		{"unexpected error: logged, shown as the generic text", func() (any, error) { return nil, errors.New("disk full") }, "Failed to do things: " + unexpectedText, true},
		{"argument error verbatim", func() (any, error) {
			return nil, &argError{Param: "images", Msg: `Image 0 is missing required "data" field`}
		}, `Image 0 is missing required "data" field`, true},
		{"panic becomes a tool error", func() (any, error) { panic("boom") }, "Failed to do things: " + unexpectedText, true},
		{"nil result is an error", func() (any, error) { return (*contextd.StoreResponse)(nil), nil }, "Failed to do things: " + unexpectedText, true},
		{"cancelled", func() (any, error) { return nil, fmt.Errorf("store: %w", context.Canceled) }, "Failed to do things: the request was cancelled", true},
		{"timed out", func() (any, error) { return nil, context.DeadlineExceeded }, "Failed to do things: the request timed out", true},
		{"success", func() (any, error) {
			return &contextd.DeleteResponse{Success: true, DeletedCount: 2, Message: "a<b"}, nil
		}, `{"success":true,"deleted_count":2,"message":"a<b"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			td := &toolDef{name: "fake", failure: "Failed to do things", call: func(context.Context, *contextd.Engine, args) (any, error) {
				return tc.call()
			}}
			r, err := s.handleDef(context.Background(), td, callReq(nil))
			if err != nil {
				t.Fatalf("handle returned a Go error: %v", err)
			}
			if r.IsError != tc.isError {
				t.Fatalf("isError: got %v, want %v", r.IsError, tc.isError)
			}
			if got := resultText(t, r); got != tc.want {
				t.Fatalf("text: got %q, want %q", got, tc.want)
			}
			if !tc.isError {
				if got := string(r.StructuredContent.(json.RawMessage)); got != tc.want {
					t.Fatalf("structured: got %s", got)
				}
			}
		})
	}
}

func TestHandleArrayResult(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tc := range []struct {
		name string
		v    any
		text string
	}{
		{"entries", []contextd.EntryView{{ID: "a", Tags: []string{}}}, `[{"id":"a","thread_id":"","source":"","content_type":"","text_content":"","metadata":null,"tags":[],"created_at":"","updated_at":"","visibility":"","is_owner":false}]`},
		{"nil slice", []contextd.EntryView(nil), `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			td := &toolDef{name: "fake", failure: "x", array: true, call: func(context.Context, *contextd.Engine, args) (any, error) { return tc.v, nil }}
			r, _ := s.handleDef(context.Background(), td, callReq(nil))
			if r.IsError {
				t.Fatalf("isError: %s", resultText(t, r))
			}
			if got := resultText(t, r); got != tc.text {
				t.Fatalf("text: got %s, want %s", got, tc.text)
			}
			b, _ := json.Marshal(r.StructuredContent)
			if got, want := string(b), `{"result":`+tc.text+`}`; got != want {
				t.Fatalf("structured: got %s, want %s", got, want)
			}
		})
	}
}

func TestHandlePrincipal(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "carol"})
	var got string
	td := &toolDef{name: "fake", failure: "x", call: func(ctx context.Context, _ *contextd.Engine, _ args) (any, error) {
		p, _ := contextd.PrincipalFrom(ctx)
		got = p.ID
		return map[string]any{}, nil
	}}
	s.handleDef(context.Background(), td, callReq(nil))
	if got != "carol" {
		t.Fatalf("no principal: got %q, want the default carol", got)
	}
	s.handleDef(contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"}), td, callReq(nil))
	if got != "alice" {
		t.Fatalf("context principal: got %q, want alice", got)
	}
}

func TestAnonymousCheckedBeforeArguments(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "anon"})
	for _, tool := range []string{"store_context", "store_context_batch", "update_context", "update_context_batch", "delete_context", "delete_context_batch"} {
		t.Run(tool, func(t *testing.T) {
			r, _ := s.handleDef(context.Background(), lookupTool(tool), callReq(map[string]any{"bogus": 1.0}))
			want := "The anonymous principal is read-only: " + tool + " is not permitted"
			if got := resultText(t, r); !r.IsError || got != want {
				t.Fatalf("got isError=%v %q, want %q", r.IsError, got, want)
			}
		})
	}
	r, _ := s.handleDef(context.Background(), lookupTool("list_threads"), callReq(map[string]any{"bogus": 1.0}))
	if got := resultText(t, r); !strings.HasPrefix(got, "Unexpected parameter 'bogus'") {
		t.Fatalf("read tool as anon: got %q, want the argument error", got)
	}
}

func TestNewOptions(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	if _, err := New(nil, Options{}); err == nil {
		t.Fatalf("New(nil): want an error")
	}
	if _, err := New(eng, Options{DefaultPrincipal: "bad principal"}); err == nil {
		t.Fatalf("invalid default principal: want an error")
	}
	s, err := New(eng, Options{DisabledTools: []string{"Delete_Context ", " update_context", "", "not_a_tool"}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	want := []string{"store_context", "search_context", "get_context_by_ids", "list_threads", "get_statistics", "fts_search_context", "hybrid_search_context",
		"grep_context", "navigate_context", "read_context_range", "plan_context_sync", "list_ingest_state",
		"share_context", "unshare_context", "list_context_grants",
		"store_context_batch", "update_context_batch", "delete_context_batch"}
	if got := strings.Join(s.ToolNames(), ","); got != strings.Join(want, ",") {
		t.Fatalf("ToolNames: got %s", got)
	}
	listed := s.MCP().ListTools()
	if _, ok := listed["delete_context"]; ok || len(listed) != len(want) {
		t.Fatalf("MCP tools: got %d, delete_context listed=%v", len(listed), ok)
	}
}

func initialize(t *testing.T, s *Server) *mcp.InitializeResult {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "test", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

func TestInitialize(t *testing.T) {
	empty, custom := "", "Be brief."
	for _, tc := range []struct {
		name         string
		instructions *string
		want         string
	}{
		{"built-in", nil, ""}, // DefaultInstructions of the registered tools
		{"none", &empty, ""},
		{"verbatim", &custom, custom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(openEngine(t, contextd.Config{}), Options{Instructions: tc.instructions, Version: "1.2.3"})
			if err != nil {
				t.Fatal(err)
			}
			res := initialize(t, s)
			if tc.instructions == nil {
				var registered []Tool
				for _, tl := range ContextTools() {
					if slices.Contains(s.ToolNames(), tl.Spec.Name) {
						registered = append(registered, tl)
					}
				}
				tc.want = DefaultInstructions(registered)
			}
			if res.Instructions != tc.want {
				t.Fatalf("instructions: got %q", res.Instructions)
			}
			if res.ServerInfo.Name != "mcp-context-server" || res.ServerInfo.Version != "1.2.3" {
				t.Fatalf("server info: got %+v", res.ServerInfo)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the stdio server's writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestServeStdio(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "anon"})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_context","arguments":{"thread_id":"t"}}}`,
	}, "\n") + "\n"
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.ServeStdio(ctx, strings.NewReader(in), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	var call struct {
		ID     int                `json:"id"`
		Result mcp.CallToolResult `json:"result"`
	}
	found := false
	sc := bufio.NewScanner(strings.NewReader(out.b.String()))
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &call); err == nil && call.ID == 2 {
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no response to the tool call; output:\n%s", out.b.String())
	}
	if got, want := resultText(t, &call.Result), "The anonymous principal is read-only: delete_context is not permitted"; !call.Result.IsError || got != want {
		t.Fatalf("got %q, want %q (the stdio principal is the default principal)", got, want)
	}
}

// TestServeStdioAnswersEverythingBeforeEOF closes stdin right after many
// requests: every one must still be answered before ServeStdio returns.
func TestServeStdioAnswersEverythingBeforeEOF(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "alice"})
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	const calls = 30
	for i := 0; i < calls; i++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"entry %d"}}}`, 100+i, i))
	}
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.ServeStdio(ctx, strings.NewReader(strings.Join(lines, "\n")), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	answered := map[int]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.b.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID int `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID >= 100 {
			answered[m.ID] = true
		}
	}
	if len(answered) != calls {
		t.Fatalf("answered %d of %d tool calls before returning", len(answered), calls)
	}
}
