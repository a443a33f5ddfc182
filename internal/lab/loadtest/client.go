package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd/server"
)

// M is a decoded JSON object.
type M = map[string]any

// Client is one MCP client connected over streamable HTTP with a fixed
// bearer token.
type Client struct {
	c     *client.Client
	tools map[string]bool // what tools/list offered
}

// Dial connects to the server at url (scheme, host and port) with token
// ("" sends none) and initializes the session.
func Dial(ctx context.Context, url, token string) (*Client, error) {
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(url+server.MCPPath, opts...)
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "contextd-load", Version: "1"},
	}}); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	cl := &Client{c: c, tools: map[string]bool{}}
	for _, t := range list.Tools {
		cl.tools[t.Name] = true
	}
	return cl, nil
}

// Close ends the session.
func (cl *Client) Close() error { return cl.c.Close() }

// MCP is the underlying mcp-go client, for calls beyond tools.
func (cl *Client) MCP() *client.Client { return cl.c }

// Has reports whether the server offered tool.
func (cl *Client) Has(tool string) bool { return cl.tools[tool] }

// Call runs one tool call. A tool error is returned as toolErr (its text)
// with a nil error; err is a transport or decoding failure. A result that
// is a JSON array comes back as {"result": [...]}.
func (cl *Client) Call(ctx context.Context, tool string, args M) (res M, toolErr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	r, err := cl.c.CallTool(ctx, req)
	if err != nil {
		return nil, "", err
	}
	text := ""
	if len(r.Content) > 0 {
		if tc, ok := r.Content[0].(mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if r.IsError {
		return nil, text, nil
	}
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		var list []any
		if json.Unmarshal([]byte(text), &list) == nil {
			return M{"result": list}, "", nil
		}
		return nil, "", fmt.Errorf("%s: result is not JSON: %.200q", tool, text)
	}
	return res, "", nil
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// CollectIDs gathers every entry id a response mentions under "id" or
// "context_id", at any depth.
func CollectIDs(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "id" || k == "context_id") && hexID.MatchString(s) {
				into[s] = true
			}
			CollectIDs(val, into)
		}
	case []any:
		for _, it := range x {
			CollectIDs(it, into)
		}
	}
}
