package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/builtin"
	"github.com/mark3labs/mcp-go/mcp"
)

// updateGolden rewrites the golden files: go test ./server -run TestToolSchemasGolden -update
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const toolsGolden = "../testdata/golden/tools.json"

type goldenTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema json.RawMessage    `json:"inputSchema"`
	Annotations mcp.ToolAnnotation `json:"annotations"`
}

// TestToolSchemasGolden pins every tool declaration: a change to a name,
// description, schema or annotation must be deliberate (-update).
func TestToolSchemasGolden(t *testing.T) {
	// A real engine with every search mode, so that every tool registers.
	eng, err := contextd.Open(context.Background(), contextd.Config{
		DBPath:    filepath.Join(t.TempDir(), "golden.db"),
		FTS:       contextd.FTSConfig{Progress: io.Discard},
		Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := New(eng, Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	listed := s.MCP().ListTools()
	var tools []goldenTool
	for _, name := range s.ToolNames() {
		st, ok := listed[name]
		if !ok {
			t.Fatalf("ToolNames lists %s but the MCP server does not", name)
		}
		tools = append(tools, goldenTool{
			Name:        st.Tool.Name,
			Description: st.Tool.Description,
			InputSchema: st.Tool.RawInputSchema,
			Annotations: st.Tool.Annotations,
		})
	}
	if len(listed) != len(tools) {
		t.Fatalf("MCP server lists %d tools, ToolNames %d", len(listed), len(tools))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tools); err != nil {
		t.Fatalf("encode: %v", err)
	}
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(toolsGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(toolsGolden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(toolsGolden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("tool declarations differ from %s; review the change and run go test ./server -run TestToolSchemasGolden -update\ngot:\n%s", toolsGolden, b.String())
	}
}

// TestSchemasAreStrictObjects checks the shape every input schema shares.
func TestSchemasAreStrictObjects(t *testing.T) {
	for _, td := range contextTools() {
		t.Run(td.name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal(inputSchema(td.params), &s); err != nil {
				t.Fatalf("schema is not JSON: %v", err)
			}
			if got := s["type"]; got != "object" {
				t.Fatalf("type: got %v, want object", got)
			}
			if got := s["additionalProperties"]; got != false {
				t.Fatalf("additionalProperties: got %v, want false", got)
			}
			props, _ := s["properties"].(map[string]any)
			if len(props) != len(td.params) {
				t.Fatalf("properties: got %d, want %d", len(props), len(td.params))
			}
			if td.desc == "" || td.title == "" || td.failure == "" {
				t.Fatalf("tool %s lacks a description, title or failure prefix", td.name)
			}
		})
	}
}

func TestAnnotations(t *testing.T) {
	tests := []struct {
		tool                              string
		readOnly, destructive, idempotent bool
	}{
		{"store_context", false, false, false},
		{"store_context_batch", false, false, false},
		{"search_context", true, false, true},
		{"get_context_by_ids", true, false, true},
		{"list_threads", true, false, true},
		{"get_statistics", true, false, true},
		{"update_context", false, true, false},
		{"update_context_batch", false, true, false},
		{"delete_context", false, true, true},
		{"delete_context_batch", false, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			a := lookupTool(tc.tool).mcpTool().Annotations
			if *a.ReadOnlyHint != tc.readOnly || *a.DestructiveHint != tc.destructive || *a.IdempotentHint != tc.idempotent {
				t.Fatalf("hints: got readOnly=%v destructive=%v idempotent=%v", *a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint)
			}
			if *a.OpenWorldHint {
				t.Fatalf("openWorldHint: got true, want false")
			}
		})
	}
}
