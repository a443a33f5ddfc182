package server

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// undecodableArgs are tool arguments no Go type of mcp-go decodes: numbers
// outside the range of a float64.
var undecodableArgs = []string{`{"limit":1e400}`, `{"metadata":{"x":-1e999}}`}

// TestStrictUnparsableCallInProcess: an in-process client
// (mcp-go's in-process transport, which calls HandleMessage directly)
// sending params Go cannot decode gets our text, never the decoder's
// ("json: cannot unmarshal ... float64"), and the next call is served.
func TestStrictUnparsableCallInProcess(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "p"})
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tr := transport.NewInProcessTransport(s.MCP())
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, args := range undecodableArgs {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &raw); err != nil {
			t.Fatal(err)
		}
		// The JSON-RPC answer itself, through the transport.
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(7)),
			Method: string(mcp.MethodToolsCall), Params: map[string]any{"name": "search_context", "arguments": raw}})
		if err != nil || resp.Error == nil || resp.Error.Code != mcp.INVALID_REQUEST || resp.Error.Message != unparsableMessage {
			t.Fatalf("%s: %v %+v, want the error %q", args, err, resp, unparsableMessage)
		}
		// And through the client, which prefixes the error kind.
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "search_context", raw
		_, err = c.CallTool(ctx, req)
		if err == nil || err.Error() != "invalid request: "+unparsableMessage {
			t.Fatalf("%s: err %v, want %q", args, err, unparsableMessage)
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "get_statistics"
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("next call: %v %+v", err, res)
	}
}

// TestStrictUnparsableCallStdio: the same over stdio, as the exact
// JSON-RPC error line.
func TestStrictUnparsableCallStdio(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "p"})
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, args := range undecodableArgs {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+string(rune('2'+i))+`,"method":"tools/call","params":{"name":"search_context","arguments":`+args+`}}`)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":1e400}}`)
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.ServeStdio(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range []string{"2", "3", "9"} {
		want[`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600,"message":"`+unparsableMessage+`"}}`] = true
	}
	sc := bufio.NewScanner(strings.NewReader(out.b.String()))
	for sc.Scan() {
		delete(want, sc.Text())
		if strings.Contains(sc.Text(), "unmarshal") {
			t.Fatalf("decoder text reached the client: %s", sc.Text())
		}
	}
	if len(want) > 0 {
		t.Fatalf("missing %v in:\n%s", want, out.b.String())
	}
}
