package server

import (
	"encoding/json"
	"testing"
)

// knowledgeParams are search_knowledge's argument types.
var knowledgeParams = []param{{name: "query", typ: tString, required: true}, {name: "topK", typ: tInteger}, {name: "minScore", typ: tNumber}}

// TestKnowledgeDecodeExact: the knowledge tools' arguments are taken as
// JSON typed them, with the reference's messages; a missing required one
// reads as absent; an unknown one is refused like every tool's.
func TestKnowledgeDecodeExact(t *testing.T) {
	for _, c := range []struct {
		raw, want string
	}{
		{`{"query":7}`, "Parameter 'query' must be a string."},
		{`{"topK":"10"}`, "Parameter 'topK' must be an integer."},
		{`{"topK":1.5}`, "Parameter 'topK' must be an integer."},
		{`{"minScore":"0.5"}`, "Parameter 'minScore' must be a number."},
		{`{"minScore":true}`, "Parameter 'minScore' must be a number."},
		{`{"limit":1}`, "Unexpected parameter 'limit' (search_knowledge accepts: query, topK, minScore)"},
		{`{}`, ""},
		{`{"query":null,"topK":1e20,"minScore":0.5}`, ""},
	} {
		a, err := decodeExact("search_knowledge", knowledgeParams, json.RawMessage(c.raw))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: error %q, want %q", c.raw, got, c.want)
		}
		if err == nil && a.has("topK") && a.int("topK") != 1<<31 {
			t.Errorf("%s: topK %d, want clamped to 2^31", c.raw, a.int("topK"))
		}
	}
	if _, err := decodeExact("container_list", nil, map[string]any{"x": 1}); err == nil || err.Error() != "Unexpected parameter 'x' (container_list takes no parameters)" {
		t.Errorf("container_list: %v", err)
	}
}

// FuzzKnowledgeDecodeExact feeds arbitrary JSON objects to the argument
// reader of search_knowledge: it never panics, and a value it accepts has
// the declared type.
func FuzzKnowledgeDecodeExact(f *testing.F) {
	f.Add(`{"query":"x","topK":3,"minScore":0.5}`)
	f.Add(`{"topK":1.5}`)
	f.Add(`{"query":7,"topK":"ten"}`)
	f.Fuzz(func(t *testing.T, s string) {
		var raw map[string]any
		if json.Unmarshal([]byte(s), &raw) != nil {
			return
		}
		a, err := decodeExact("search_knowledge", knowledgeParams, raw)
		if err != nil {
			return
		}
		for k, v := range a {
			switch v.(type) {
			case string:
				if k != "query" {
					t.Fatalf("%s accepted as a string", k)
				}
			case int:
				if k != "topK" {
					t.Fatalf("%s accepted as an integer", k)
				}
			case float64:
				if k != "minScore" {
					t.Fatalf("%s accepted as a number", k)
				}
			default:
				t.Fatalf("%s accepted as %T", k, v)
			}
		}
	})
}

func TestKnowledgeN0(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234: "1,234", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := n0(n); got != want {
			t.Errorf("n0(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestKnowledgeToolDeclarations: the eleven tools in reference order,
// each a strict object schema over string, integer and number
// parameters, with the reference's annotations.
func TestKnowledgeToolDeclarations(t *testing.T) {
	want := []string{"container_create", "container_list", "container_delete", "container_stats", "upload_file",
		"bulk_upload", "list_files", "get_document", "delete_file", "bulk_delete", "search_knowledge"}
	tools := KnowledgeTools()
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	readOnly := map[string]bool{"container_list": true, "container_stats": true, "list_files": true, "get_document": true, "search_knowledge": true}
	destructive := map[string]bool{"container_delete": true, "delete_file": true, "bulk_delete": true}
	for i, tool := range tools {
		name := tool.Spec.Name
		if name != want[i] {
			t.Fatalf("tool %d is %s, want %s", i, name, want[i])
		}
		var s struct {
			Type       string                    `json:"type"`
			Props      map[string]map[string]any `json:"properties"`
			Additional *bool                     `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Spec.RawInputSchema, &s); err != nil || s.Type != "object" || s.Additional == nil || *s.Additional {
			t.Errorf("%s: schema %s", name, tool.Spec.RawInputSchema)
		}
		for p, ps := range s.Props {
			if typ := ps["type"]; typ != "string" && typ != "integer" && typ != "number" {
				t.Errorf("%s: %s has type %v", name, p, typ)
			}
		}
		a := tool.Spec.Annotations
		if *a.ReadOnlyHint != readOnly[name] || *a.DestructiveHint != destructive[name] || tool.Writes == readOnly[name] {
			t.Errorf("%s: readOnly %v destructive %v writes %v", name, *a.ReadOnlyHint, *a.DestructiveHint, tool.Writes)
		}
	}
}
