package server

import (
	"reflect"
	"testing"
)

func TestStoreEntryDecodeErr(t *testing.T) {
	base := func(extra map[string]any, drop ...string) map[string]any {
		m := map[string]any{"thread_id": "t", "source": "agent", "text": "hello"}
		for k, v := range extra {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	tests := []struct {
		name  string
		entry map[string]any
		want  string // "" = no DecodeErr
	}{
		{"valid", base(nil), ""},
		{"unknown keys ignored", base(map[string]any{"owner_id": "bob", "extra": 1.0}), ""},
		{"missing thread_id", base(nil, "thread_id"), "Missing required field: thread_id"},
		{"empty thread_id", base(map[string]any{"thread_id": ""}), "Missing required field: thread_id"},
		{"null thread_id", base(map[string]any{"thread_id": nil}), "Missing required field: thread_id"},
		{"missing source", base(nil, "source"), `Missing or invalid source (must be "user" or "agent")`},
		{"invalid source", base(map[string]any{"source": "robot"}), `Missing or invalid source (must be "user" or "agent")`},
		{"non-string source", base(map[string]any{"source": 1.0}), `Missing or invalid source (must be "user" or "agent")`},
		{"missing text", base(nil, "text"), "Missing required field: text"},
		{"thread first", base(map[string]any{"source": "x"}, "thread_id", "text"), "Missing required field: thread_id"},
		{"source before text", base(map[string]any{"source": "x"}, "text"), `Missing or invalid source (must be "user" or "agent")`},
		{"thread_id number", base(map[string]any{"thread_id": 5.0}), "thread_id must be a string"},
		{"text list", base(map[string]any{"text": []any{"a"}}), "text must be a string"},
		{"presence before type", base(map[string]any{"thread_id": 5.0}, "text"), "Missing required field: text"},
		{"whitespace text left to the engine", base(map[string]any{"text": "   "}), ""},
		{"visibility shared", base(map[string]any{"visibility": "shared"}), "visibility must be one of 'private', 'public'"},
		{"visibility number", base(map[string]any{"visibility": 1.0}), "visibility must be one of 'private', 'public'"},
		{"visibility null", base(map[string]any{"visibility": nil}), ""},
		{"images object", base(map[string]any{"images": map[string]any{"data": "x"}}), "images must be a list of objects"},
		{"images list of strings", base(map[string]any{"images": []any{"x"}}), "images must be a list of objects"},
		{"image missing data", base(map[string]any{"images": []any{map[string]any{"mime_type": "image/png"}}}), `Image 0 is missing required "data" field`},
		{"image non-string data", base(map[string]any{"images": []any{map[string]any{"data": "eA=="}, map[string]any{"data": 5.0}}}), `Image 1 has a non-string "data" field`},
		{"image non-string mime", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "mime_type": true}}}), `Image 0 has a non-string "mime_type" field`},
		{"image metadata dict", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "metadata": map[string]any{}}}}), "Image 0 metadata must be a JSON-encoded string (got dict)"},
		{"image metadata list", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "metadata": []any{}}}}), "Image 0 metadata must be a JSON-encoded string (got list)"},
		{"image metadata int", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "metadata": 3.0}}}), "Image 0 metadata must be a JSON-encoded string (got int)"},
		{"image metadata float", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "metadata": 3.5}}}), "Image 0 metadata must be a JSON-encoded string (got float)"},
		{"image metadata bool", base(map[string]any{"images": []any{map[string]any{"data": "eA==", "metadata": false}}}), "Image 0 metadata must be a JSON-encoded string (got bool)"},
		{"11 images left to the engine", base(map[string]any{"images": make11Images()}), ""},
		{"metadata string", base(map[string]any{"metadata": "x"}), "metadata must be a JSON object"},
		{"tags string", base(map[string]any{"tags": "abc"}), "tags must be a list of strings"},
		{"tags with a number", base(map[string]any{"tags": []any{"a", 1.0}}), "tags must be a list of strings"},
		{"deduplicate off", base(map[string]any{"deduplicate": "off"}), ""},
		{"deduplicate FALSE", base(map[string]any{"deduplicate": "FALSE"}), ""},
		{"deduplicate 0", base(map[string]any{"deduplicate": 0.0}), ""},
		{"deduplicate maybe", base(map[string]any{"deduplicate": "maybe"}), "deduplicate must be a boolean"},
		{"deduplicate 2", base(map[string]any{"deduplicate": 2.0}), "deduplicate must be a boolean"},
		{"first problem wins", base(map[string]any{"visibility": "x", "tags": "y"}), "visibility must be one of 'private', 'public'"},
		{"images before metadata", base(map[string]any{"metadata": "m", "images": "i"}), "images must be a list of objects"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := decodeStoreEntry(tc.entry)
			got := ""
			if it.DecodeErr != nil {
				got = it.DecodeErr.Error()
			}
			if got != tc.want {
				t.Fatalf("DecodeErr: got %q, want %q", got, tc.want)
			}
		})
	}
}

func make11Images() []any {
	l := make([]any, 11)
	for i := range l {
		l[i] = map[string]any{"data": 5.0} // element problems are not reported past the count cap
	}
	return l
}

func TestStoreEntryValues(t *testing.T) {
	md := map[string]any{"a": 1.0}
	it := decodeStoreEntry(map[string]any{
		"thread_id": " t ", "source": "user", "text": " x ", "metadata": md,
		"tags": []any{}, "visibility": "public", "deduplicate": "no",
		"images": []any{map[string]any{"data": "eA==", "metadata": ""}},
	})
	if it.DecodeErr != nil {
		t.Fatalf("DecodeErr: %v", it.DecodeErr)
	}
	if it.ThreadID != " t " || it.Source != "user" || it.Text != " x " || it.Visibility != "public" {
		t.Fatalf("scalars: got %+v", it.StoreRequest)
	}
	if !reflect.DeepEqual(it.Metadata, md) {
		t.Fatalf("metadata: got %#v", it.Metadata)
	}
	if it.Tags == nil || len(it.Tags) != 0 {
		t.Fatalf("tags []: got %#v, want a non-nil empty slice", it.Tags)
	}
	if it.Deduplicate == nil || *it.Deduplicate {
		t.Fatalf("deduplicate: got %v, want false", it.Deduplicate)
	}
	if len(it.Images) != 1 || it.Images[0].Data != "eA==" || it.Images[0].MimeType != "" || it.Images[0].Metadata == nil || *it.Images[0].Metadata != "" {
		t.Fatalf("images: got %#v", it.Images)
	}
	plain := decodeStoreEntry(map[string]any{"thread_id": "t", "source": "user", "text": "x"})
	if plain.Tags != nil || plain.Images != nil || plain.Metadata != nil || plain.Deduplicate != nil {
		t.Fatalf("absent fields must stay nil: %+v", plain.StoreRequest)
	}
}

func TestUpdateEntryDecodeErr(t *testing.T) {
	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"context_id": "abcdef12", "text": "new"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		entry map[string]any
		want  string
	}{
		{"valid", base(nil), ""},
		{"unknown keys ignored", base(map[string]any{"source": "user"}), ""},
		{"missing context_id", map[string]any{"text": "x"}, "Missing required field: context_id"},
		{"null context_id", base(map[string]any{"context_id": nil}), "context_id must be a non-empty string"},
		{"numeric context_id", base(map[string]any{"context_id": 12345678.0}), "context_id must be a non-empty string"},
		{"blank context_id", base(map[string]any{"context_id": " \t"}), "context_id must be a non-empty string"},
		{"text number", base(map[string]any{"text": 1.0}), "text must be a string"},
		{"no fields left to the engine", map[string]any{"context_id": "abcdef12"}, ""},
		{"visibility", base(map[string]any{"visibility": "shared"}), "visibility must be one of 'private', 'public'"},
		{"metadata list", base(map[string]any{"metadata": []any{}}), "metadata must be a JSON object"},
		{"metadata_patch string", base(map[string]any{"metadata_patch": "x"}), "metadata_patch must be a JSON object"},
		{"both metadata forms left to the engine", base(map[string]any{"metadata": map[string]any{}, "metadata_patch": map[string]any{}}), ""},
		{"tags", base(map[string]any{"tags": []any{nil}}), "tags must be a list of strings"},
		{"images", base(map[string]any{"images": "x"}), "images must be a list of objects"},
		{"image data", base(map[string]any{"images": []any{map[string]any{}}}), `Image 0 is missing required "data" field`},
		{"text before visibility", base(map[string]any{"text": 1.0, "visibility": "x"}), "text must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := decodeUpdateEntry(tc.entry)
			got := ""
			if it.DecodeErr != nil {
				got = it.DecodeErr.Error()
			}
			if got != tc.want {
				t.Fatalf("DecodeErr: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUpdateEntryValues(t *testing.T) {
	it := decodeUpdateEntry(map[string]any{
		"context_id": "ABCDEF12", "metadata_patch": map[string]any{"x": nil}, "images": []any{}, "visibility": "private",
	})
	if it.DecodeErr != nil {
		t.Fatalf("DecodeErr: %v", it.DecodeErr)
	}
	if it.ContextID != "ABCDEF12" || it.Text != nil || it.Metadata != nil || it.Tags != nil {
		t.Fatalf("got %+v", it.UpdateRequest)
	}
	if it.Images == nil || len(*it.Images) != 0 {
		t.Fatalf("images []: got %v, want a pointer to an empty slice", it.Images)
	}
	if it.Visibility == nil || *it.Visibility != "private" {
		t.Fatalf("visibility: got %v", it.Visibility)
	}
	if _, ok := it.MetadataPatch["x"]; !ok {
		t.Fatalf("metadata_patch must keep null values: %#v", it.MetadataPatch)
	}
}
