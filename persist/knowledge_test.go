package persist

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestIsKnowledgeThread(t *testing.T) {
	for thread, want := range map[string]bool{
		"knowledge": true, "knowledge/0190abcd": true, "knowledge/": true,
		"Knowledge": false, "knowledge-base": false, "knowledgex/y": false, "notes": false, "": false, "my/knowledge": false,
	} {
		if got := IsKnowledgeThread(thread); got != want {
			t.Errorf("IsKnowledgeThread(%q) = %v", thread, got)
		}
	}
}

// TestPublicMetadata: the blob of a knowledge record is cut out, every
// other byte kept; other threads and other shapes are left alone.
func TestPublicMetadata(t *testing.T) {
	for _, tc := range []struct{ thread, in, want string }{
		{"knowledge/x", `{"knowledge":{"kind":"document","blob":"QUJD","status":"Pending"}}`, `{"knowledge":{"kind":"document","status":"Pending"}}`},
		{"knowledge/x", `{"knowledge":{"blob":"QUJD","kind":"document"}}`, `{"knowledge":{"kind":"document"}}`},
		{"knowledge/x", `{"knowledge":{"blob":"QUJD"}}`, `{"knowledge":{}}`},
		{"knowledge/x", `{"knowledge":{"kind":"document","blob":"QUJD"}}`, `{"knowledge":{"kind":"document"}}`},
		{"knowledge/x", `{"knowledge":{"blob":"QUJD","blob":"REVG","kind":"d"}}`, `{"knowledge":{"kind":"d"}}`},
		{"knowledge/x", `{"knowledge":{"kind":"d","blob":"QUJD","blob":"REVG"}}`, `{"knowledge":{"kind":"d"}}`},
		{"knowledge/x", "{ \"a\" : [1,{\"blob\":2}], \"knowledge\" : { \"blob\" : \"QUJD\" ,\n \"x\":{\"blob\":1} } , \"b\":\"<&>\"}",
			"{ \"a\" : [1,{\"blob\":2}], \"knowledge\" : { \n \"x\":{\"blob\":1} } , \"b\":\"<&>\"}"},
		{"knowledge", `{"knowledge":{"kind":"managed","name":"blob"}}`, `{"knowledge":{"kind":"managed","name":"blob"}}`},
		{"knowledge/x", `{"knowledge":["blob"]}`, `{"knowledge":["blob"]}`},
		{"knowledge/x", `{"other":{"blob":"QUJD"}}`, `{"other":{"blob":"QUJD"}}`},
		{"knowledge/x", `{"knowledge":{"blob":"QUJD"}`, `{"knowledge":{"blob":"QUJD"}`}, // malformed: as is
		{"notes", `{"knowledge":{"kind":"document","blob":"QUJD"}}`, `{"knowledge":{"kind":"document","blob":"QUJD"}}`},
		{"knowledge/x", ``, ``},
	} {
		got := string(PublicMetadata(tc.thread, []byte(tc.in)))
		if got != tc.want {
			t.Errorf("PublicMetadata(%q, %s) = %s, want %s", tc.thread, tc.in, got, tc.want)
			continue
		}
		if got != tc.in && !json.Valid([]byte(got)) {
			t.Errorf("PublicMetadata(%s) = %s: not JSON", tc.in, got)
		}
	}
}

// FuzzPublicMetadata: the result is the input with the record's blob
// members deleted, as a decoder sees it, and valid JSON when the input is.
func FuzzPublicMetadata(f *testing.F) {
	f.Add(`{"knowledge":{"kind":"document","blob":"QUJD","status":"Pending"}}`)
	f.Add(`{"knowledge":{"blob":"QUJD" , "blob":1,"k":{"blob":2}},"blob":3}`)
	f.Fuzz(func(t *testing.T, in string) {
		got := PublicMetadata("knowledge/x", []byte(in))
		if !json.Valid([]byte(in)) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("%s -> %s: not JSON", in, got)
		}
		var a, b any
		json.Unmarshal([]byte(in), &a) //nolint:errcheck // valid
		json.Unmarshal(got, &b)        //nolint:errcheck // valid
		if m, ok := a.(map[string]any); ok {
			if r, ok := m[KnowledgeMetaKey].(map[string]any); ok {
				delete(r, "blob")
			}
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s -> %s", in, got)
		}
	})
}
