package main

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpHTTP connects an MCP client to the binary serving HTTP at addr for
// at most limit and returns a call that answers a tool's text and whether
// it is a tool error (a transport error fails the test).
func mcpHTTP(t *testing.T, addr, name string, limit time.Duration) func(tool string, args map[string]any) (string, bool) {
	t.Helper()
	c, err := client.NewStreamableHttpClient("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res.Content[0].(mcp.TextContent).Text, res.IsError
	}
}

// mustSucceed wraps a call from mcpHTTP so that a tool error fails the
// test with the tool's answer.
func mustSucceed(t *testing.T, call func(tool string, args map[string]any) (string, bool)) func(tool string, args map[string]any) string {
	return func(tool string, args map[string]any) string {
		t.Helper()
		out, isErr := call(tool, args)
		if isErr {
			t.Fatalf("%s: %s", tool, out)
		}
		return out
	}
}
