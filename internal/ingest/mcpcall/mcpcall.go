// Package mcpcall calls contextd's tools through an mcp-go client for the
// ingest client (ingest.Caller). It is apart from internal/ingest so that
// the engine, whose knowledge sources use ingest's digests and file
// walking, does not link mcp-go's client: only cmd/contextd and the tests
// that drive a server do.
//
//	var c ingest.Caller = mcpcall.Caller{Client: cli} // cli: an initialized *client.Client
//	raw, err := c.CallTool(ctx, "list_ingest_state", args)
package mcpcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd/internal/ingest"
)

// Caller calls tools through an initialized mcp-go client: an in-process
// one for the local database, a streamable HTTP one for --server.
type Caller struct {
	Client *client.Client
}

// CallTool implements ingest.Caller.
func (c Caller) CallTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.Client.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var text strings.Builder
	for _, part := range res.Content {
		if t, ok := part.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return nil, &ingest.ToolError{Tool: name, Text: text.String()}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("%s: result: %w", name, err)
		}
		return b, nil
	}
	if !json.Valid([]byte(text.String())) {
		return nil, errors.New(name + ": result is not JSON")
	}
	return json.RawMessage(text.String()), nil
}
