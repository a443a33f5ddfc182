package ingest

import (
	"context"
	"encoding/json"
	"fmt"
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
