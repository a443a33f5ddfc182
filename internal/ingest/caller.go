package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Caller calls one contextd MCP tool and returns its JSON result; a tool
// error (isError) is returned as an error carrying the tool's text.
type Caller interface {
	CallTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error)
}

// ToolError is a tool's own refusal (an MCP result with isError set).
type ToolError struct {
	Tool string
	Text string
}

func (e *ToolError) Error() string { return e.Tool + ": " + e.Text }

// MCPCaller calls tools through an initialized mcp-go client: an
// in-process one for the local database, a streamable HTTP one for
// --server.
type MCPCaller struct {
	Client *client.Client
}

// CallTool implements Caller.
func (c MCPCaller) CallTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
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
		return nil, &ToolError{Tool: name, Text: text.String()}
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

// call runs a tool and decodes its result into out.
func call(ctx context.Context, c Caller, name string, args map[string]any, out any) error {
	raw, err := c.CallTool(ctx, name, args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", name, err)
	}
	return nil
}
