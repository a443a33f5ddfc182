package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// lookupTool returns the built-in tool named name, nil when there is none.
func lookupTool(name string) *toolDef {
	for _, td := range contextTools() {
		if td.name == name {
			return td
		}
	}
	return nil
}

// decodeTool decodes args for a built-in tool.
func decodeTool(t *testing.T, tool string, raw any) (args, error) {
	t.Helper()
	td := lookupTool(tool)
	if td == nil {
		t.Fatalf("no tool %s", tool)
	}
	return decodeArgs(tool, td.params, raw)
}

func TestDecodeCoercion(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		raw   map[string]any
		param string
		want  any
	}{
		{"integer from string", "search_context", map[string]any{"limit": "5"}, "limit", 5},
		{"integer from padded string", "search_context", map[string]any{"limit": " 7 "}, "limit", 7},
		{"integer from integral float", "search_context", map[string]any{"limit": 5.0}, "limit", 5},
		{"integer from integral float string", "search_context", map[string]any{"offset": "10.0"}, "offset", 10},
		{"limit above 100 kept for the engine", "search_context", map[string]any{"limit": 150.0}, "limit", 150},
		{"bool true", "search_context", map[string]any{"include_images": true}, "include_images", true},
		{"bool from 'true'", "search_context", map[string]any{"include_images": "true"}, "include_images", true},
		{"bool from 'False'", "search_context", map[string]any{"include_images": "False"}, "include_images", false},
		{"bool from '1'", "search_context", map[string]any{"explain_query": "1"}, "explain_query", true},
		{"bool from '0'", "search_context", map[string]any{"explain_query": "0"}, "explain_query", false},
		{"bool from 'yes'", "get_context_by_ids", map[string]any{"context_ids": []any{"abcdef12"}, "include_images": "yes"}, "include_images", true},
		{"bool from 'NO'", "get_context_by_ids", map[string]any{"context_ids": []any{"abcdef12"}, "include_images": "NO"}, "include_images", false},
		{"bool from 'on'", "store_context_batch", map[string]any{"entries": []any{map[string]any{}}, "atomic": "on"}, "atomic", true},
		{"bool from 'off'", "store_context_batch", map[string]any{"entries": []any{map[string]any{}}, "atomic": "off"}, "atomic", false},
		{"bool from number 1", "search_context", map[string]any{"explain_query": 1.0}, "explain_query", true},
		{"array from JSON string", "search_context", map[string]any{"tags": `["a", "b"]`}, "tags", []any{"a", "b"}},
		{"empty array from JSON string", "search_context", map[string]any{"tags": `[]`}, "tags", []any{}},
		{"object from JSON string", "search_context", map[string]any{"metadata": `{"status": "active"}`}, "metadata", map[string]any{"status": "active"}},
		{"objects from JSON string", "search_context", map[string]any{"metadata_filters": `[{"key": "p", "operator": "gt", "value": 3}]`}, "metadata_filters",
			[]any{map[string]any{"key": "p", "operator": "gt", "value": 3.0}}},
		{"Go typed slice", "search_context", map[string]any{"tags": []string{"x"}}, "tags", []any{"x"}},
		{"Go int", "list_threads", map[string]any{"limit": 3}, "limit", 3},
		{"string kept verbatim", "store_context", map[string]any{"thread_id": " t ", "source": "user", "text": " hi "}, "text", " hi "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := decodeTool(t, tc.tool, tc.raw)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := a[tc.param]; !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s: got %#v, want %#v", tc.param, got, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	store := func(extra map[string]any) map[string]any {
		m := map[string]any{"thread_id": "t", "source": "user", "text": "hello"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tags := func(n int, s string) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = s
		}
		return l
	}
	tests := []struct {
		name string
		tool string
		raw  any
		want string // the exact message, or a prefix ending in "..."
	}{
		{"unknown parameter", "store_context", store(map[string]any{"foo": 1.0}),
			"Unexpected parameter 'foo' (store_context accepts: thread_id, source, text, images, metadata, tags, visibility, deduplicate)"},
		{"unknown parameter first in name order", "list_threads", map[string]any{"zz": 1.0, "aa": 1.0}, "Unexpected parameter 'aa' ..."},
		{"unknown parameter of a tool without any", "get_statistics", map[string]any{"x": true},
			"Unexpected parameter 'x' (get_statistics takes no parameters)"},
		{"owner_id is not a parameter", "store_context", store(map[string]any{"owner_id": "bob"}), "Unexpected parameter 'owner_id' ..."},
		{"missing required", "store_context", map[string]any{"source": "user", "text": "x"}, "Missing required parameter 'thread_id'"},
		{"null counts as absent", "store_context", store(map[string]any{"text": nil}), "Missing required parameter 'text'"},
		{"missing required array", "get_context_by_ids", map[string]any{}, "Missing required parameter 'context_ids'"},
		{"string for integer", "search_context", map[string]any{"limit": "abc"}, "Parameter 'limit' must be an integer, got string 'abc'"},
		{"non-integral float", "search_context", map[string]any{"limit": 2.5}, "Parameter 'limit' must be an integer, got number 2.5"},
		{"non-integral float string", "search_context", map[string]any{"limit": "2.5"}, "Parameter 'limit' must be an integer, got string '2.5'"},
		{"bool for integer", "search_context", map[string]any{"limit": true}, "Parameter 'limit' must be an integer, got boolean true"},
		{"number for string", "store_context", store(map[string]any{"thread_id": 5.0}), "Parameter 'thread_id' must be a string, got number 5"},
		{"object for string", "search_context", map[string]any{"thread_id": map[string]any{}}, "Parameter 'thread_id' must be a string, got object"},
		{"bad boolean word", "search_context", map[string]any{"explain_query": "maybe"}, "Parameter 'explain_query' must be a boolean, got string 'maybe'"},
		{"number 2 for boolean", "search_context", map[string]any{"explain_query": 2.0}, "Parameter 'explain_query' must be a boolean, got number 2"},
		{"bare string for array", "search_context", map[string]any{"tags": "abc"}, "Parameter 'tags' must be an array, got string 'abc'"},
		{"JSON object string for array", "search_context", map[string]any{"tags": `{"a":1}`}, `Parameter 'tags' must be an array, got string '{"a":1}'`},
		{"array for object", "search_context", map[string]any{"metadata": []any{}}, "Parameter 'metadata' must be an object, got array"},
		{"bad JSON string for object", "update_context", map[string]any{"context_id": "abcdef12", "metadata": "{nope"}, "Parameter 'metadata' must be an object, got string '{nope'"},
		{"element type", "search_context", map[string]any{"tags": []any{"a", 5.0}}, "Parameter 'tags' item 1 must be a string, got number 5"},
		{"null element", "get_context_by_ids", map[string]any{"context_ids": []any{nil}}, "Parameter 'context_ids' item 0 must be a string, got null"},
		{"string element for objects", "search_context", map[string]any{"metadata_filters": []any{`{"key":"a"}`}}, `Parameter 'metadata_filters' item 0 must be an object, got string '{"key":"a"}'`},
		{"enum", "store_context", store(map[string]any{"source": "robot"}), "Parameter 'source' must be one of 'user', 'agent', got 'robot'"},
		{"enum visibility shared", "update_context", map[string]any{"context_id": "abcdef12", "visibility": "shared"}, "Parameter 'visibility' must be one of 'private', 'public', got 'shared'"},
		{"enum content_type", "search_context", map[string]any{"content_type": "image"}, "Parameter 'content_type' must be one of 'text', 'multimodal', got 'image'"},
		{"below minimum", "search_context", map[string]any{"limit": 0.0}, "Parameter 'limit' must be at least 1, got 0"},
		{"negative offset", "search_context", map[string]any{"offset": -1.0}, "Parameter 'offset' must be at least 0, got -1"},
		{"offset above maximum", "search_context", map[string]any{"offset": 1000001.0}, "Parameter 'offset' must be at most 1000000, got 1000001"},
		{"list_threads limit 101", "list_threads", map[string]any{"limit": 101.0}, "Parameter 'limit' must be at most 100, got 101"},
		{"list_threads limit 0", "list_threads", map[string]any{"limit": "0"}, "Parameter 'limit' must be at least 1, got 0"},
		{"older_than_days 0", "delete_context_batch", map[string]any{"older_than_days": 0.0, "source": "user"}, "Parameter 'older_than_days' must be at least 1, got 0"},
		{"empty string", "store_context", store(map[string]any{"text": ""}), "Parameter 'text' must not be empty"},
		{"thread_id too long", "store_context", store(map[string]any{"thread_id": strings.Repeat("é", 257)}), "Parameter 'thread_id' must be at most 256 characters, got 257"},
		{"context_id too short", "update_context", map[string]any{"context_id": "abcdef1", "text": "x"}, "Parameter 'context_id' must be at least 8 characters, got 7"},
		{"NUL in text", "store_context", store(map[string]any{"text": "a\x00b"}),
			"text: A string value contains an embedded NUL (U+0000) character: PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."},
		{"NUL in a tag", "store_context", store(map[string]any{"tags": []any{"ok", "b\x00"}}), "tags: A string value contains an embedded NUL (U+0000) character: ..."},
		{"NUL in search thread_id", "search_context", map[string]any{"thread_id": "\x00"}, "thread_id: A string value contains an embedded NUL ..."},
		{"too many tags", "store_context", store(map[string]any{"tags": tags(101, "x")}), "Too many tags: 101 provided, maximum is 100 per entry"},
		{"tag too long", "update_context", map[string]any{"context_id": "abcdef12", "tags": []any{"a", strings.Repeat("t", 129)}},
			"Tag 1 is too long: 129 characters, maximum is 128 characters per tag"},
		{"too many images", "store_context", store(map[string]any{"images": make([]any, 11)}), "Too many images: 11 provided, maximum is 10 per entry"},
		{"image not an object", "store_context", store(map[string]any{"images": []any{"abc"}}), "Parameter 'images' item 0 must be an object, got string 'abc'"},
		{"too many search tags", "search_context", map[string]any{"tags": tags(101, "x")}, "Parameter 'tags' must contain at most 100 items, got 101"},
		{"too many metadata filters", "search_context", map[string]any{"metadata_filters": make([]any, 101)}, "Parameter 'metadata_filters' must contain at most 100 items, got 101"},
		{"no ids", "get_context_by_ids", map[string]any{"context_ids": []any{}}, "Parameter 'context_ids' must contain at least 1 item"},
		{"101 ids", "get_context_by_ids", map[string]any{"context_ids": tags(101, "abcdef12")}, "Parameter 'context_ids' must contain at most 100 items, got 101"},
		{"101 batch entries", "store_context_batch", map[string]any{"entries": make([]any, 101)}, "Parameter 'entries' must contain at most 100 items, got 101"},
		{"empty batch", "update_context_batch", map[string]any{"updates": "[]"}, "Parameter 'updates' must contain at least 1 item"},
		{"batch entry not an object", "store_context_batch", map[string]any{"entries": []any{"x"}}, "Parameter 'entries' item 0 must be an object, got string 'x'"},
		{"101 batch delete thread_ids", "delete_context_batch", map[string]any{"thread_ids": tags(101, "t")}, "Parameter 'thread_ids' must contain at most 100 items, got 101"},
		{"arguments not an object", "list_threads", []any{1.0}, "Tool arguments must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeTool(t, tc.tool, tc.raw)
			if err == nil {
				t.Fatalf("decode succeeded, want %q", tc.want)
			}
			got := err.Error()
			if prefix, ok := strings.CutSuffix(tc.want, "..."); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Fatalf("got %q, want prefix %q", got, prefix)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecodeAbsentVersusEmpty(t *testing.T) {
	a, err := decodeTool(t, "update_context", map[string]any{
		"context_id": "abcdef12", "tags": []any{}, "metadata": map[string]any{}, "metadata_patch": nil,
	})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got := a.strings("tags"); got == nil || len(got) != 0 {
		t.Fatalf("tags: got %#v, want a non-nil empty slice", got)
	}
	if got := a.object("metadata"); got == nil || len(got) != 0 {
		t.Fatalf("metadata: got %#v, want a non-nil empty map", got)
	}
	if a.has("metadata_patch") || a.object("metadata_patch") != nil {
		t.Fatalf("metadata_patch: null must count as absent")
	}
	if got := a.strings("absent"); got != nil {
		t.Fatalf("absent list: got %#v, want nil", got)
	}
	if a.strPtr("text") != nil || a.boolPtr("deduplicate") != nil {
		t.Fatalf("absent scalars must decode to nil pointers")
	}
	b, err := decodeTool(t, "search_context", map[string]any{"tags": "null", "metadata_filters": "[]"})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if b.has("tags") {
		t.Fatalf(`tags "null": want absent`)
	}
	if got := b.objects("metadata_filters"); got == nil || len(got) != 0 {
		t.Fatalf("metadata_filters: got %#v, want a non-nil empty slice", got)
	}
}

func TestDecodeArgumentForms(t *testing.T) {
	tests := []struct {
		name string
		raw  any
	}{
		{"nil", nil},
		{"raw JSON", []byte(`{"limit": 3}`)},
		{"struct", struct {
			Limit int `json:"limit"`
		}{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeTool(t, "list_threads", tc.raw); err != nil {
				t.Fatalf("decode: %v", err)
			}
		})
	}
}

func TestExactArguments(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		ok   bool
		path []string // to the value checked
		want any
	}{
		{"no long digit run", `{"limit": 5}`, false, nil, nil},
		{"integer outside int64 kept", `{"metadata_filters": [{"key": "p", "value": 100000000000000000000}]}`, true,
			[]string{"metadata_filters", "0", "value"}, json.Number("100000000000000000000")},
		{"other numbers become float64", `{"a": 12, "b": 1.5, "c": 9223372036854775807, "d": 1e300}`, true,
			[]string{"a"}, 12.0},
		{"int64 max becomes float64", `{"c": 9223372036854775807}`, true, []string{"c"}, 9223372036854775807.0},
		{"digits inside a string only", `{"t": "12345678901234567890"}`, false, nil, nil}, // no number: nothing to keep
		{"digits after an escaped quote", `{"t": "a\\\"12345678901234567890"}`, false, nil, nil},
		{"long integer after a string", `{"t": "x\\", "n": 12345678901234567890}`, true, []string{"n"}, json.Number("12345678901234567890")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := exactArguments(json.RawMessage(tc.raw))
			if ok != tc.ok {
				t.Fatalf("ok: got %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			var v any = m
			for _, p := range tc.path {
				switch x := v.(type) {
				case map[string]any:
					v = x[p]
				case []any:
					v = x[int(p[0]-'0')]
				}
			}
			if v != tc.want {
				t.Fatalf("value: got %#v (%T), want %#v", v, v, tc.want)
			}
		})
	}
	a, err := decodeTool(t, "search_context", mustExact(t, `{"limit": 100000000000000000000}`))
	if err == nil || err.Error() != "Parameter 'limit' must be an integer, got number 100000000000000000000" {
		t.Fatalf("huge limit: got %v, %v", a, err)
	}
}

func mustExact(t *testing.T, raw string) map[string]any {
	t.Helper()
	m, ok := exactArguments(json.RawMessage(raw))
	if !ok {
		t.Fatalf("exactArguments(%s): not ok", raw)
	}
	return m
}

func TestDecodeEmptyDate(t *testing.T) {
	for _, name := range []string{"start_date", "end_date"} {
		_, err := decodeTool(t, "search_context", map[string]any{name: ""})
		want := "Invalid " + name + ` format: "". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`
		if err == nil || err.Error() != want {
			t.Fatalf("%s: got %v, want %q", name, err, want)
		}
	}
}
