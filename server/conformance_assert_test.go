package server_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// ---- assertions -------------------------------------------------------

func wantEqual[T comparable](t *testing.T, label string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", label, got, want)
	}
}

func wantErrContains(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Fatalf("error message: got %q, want it to contain %q", got, want)
	}
}

func wantPrefix(t *testing.T, label, got, prefix string) {
	t.Helper()
	if !strings.HasPrefix(got, prefix) {
		t.Fatalf("%s: got %q, want prefix %q", label, got, prefix)
	}
}

// wantEqualJSON compares got (any JSON-able value) with the JSON text want.
func wantEqualJSON(t *testing.T, label string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want JSON %q: %v", label, want, err)
	}
	g := roundTrip(t, got)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: got %s, want %s", label, mustJSON(g), mustJSON(w))
	}
}

// wantSet compares two id lists as sets, naming entries for the message.
func wantSet(t *testing.T, label string, got, want []string) {
	t.Helper()
	g := map[string]int{}
	for _, id := range got {
		g[id]++
	}
	w := map[string]int{}
	for _, id := range want {
		w[id]++
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: got %v, want %v", label, got, want)
	}
}

func wantSlice(t *testing.T, label string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %q, want %q", label, got, want)
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// ---- JSON accessors -----------------------------------------------------

func field(t *testing.T, m M, key string) any {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Fatalf("missing key %q in %s", key, mustJSON(m))
	}
	return v
}

func str(t *testing.T, m M, key string) string {
	t.Helper()
	v, ok := field(t, m, key).(string)
	if !ok {
		t.Fatalf("key %q: got %s, want a string", key, mustJSON(m[key]))
	}
	return v
}

func num(t *testing.T, m M, key string) float64 {
	t.Helper()
	v, ok := field(t, m, key).(float64)
	if !ok {
		t.Fatalf("key %q: got %s, want a number", key, mustJSON(m[key]))
	}
	return v
}

func boolean(t *testing.T, m M, key string) bool {
	t.Helper()
	v, ok := field(t, m, key).(bool)
	if !ok {
		t.Fatalf("key %q: got %s, want a boolean", key, mustJSON(m[key]))
	}
	return v
}

func obj(t *testing.T, m M, key string) M {
	t.Helper()
	v, ok := field(t, m, key).(M)
	if !ok {
		t.Fatalf("key %q: got %s, want an object", key, mustJSON(m[key]))
	}
	return v
}

func arr(t *testing.T, m M, key string) []any {
	t.Helper()
	v, ok := field(t, m, key).([]any)
	if !ok {
		t.Fatalf("key %q: got %s, want a list", key, mustJSON(m[key]))
	}
	return v
}

func objs(t *testing.T, items []any) []M {
	t.Helper()
	out := make([]M, 0, len(items))
	for i, it := range items {
		m, ok := it.(M)
		if !ok {
			t.Fatalf("item %d: got %s, want an object", i, mustJSON(it))
		}
		out = append(out, m)
	}
	return out
}

func strs(t *testing.T, m M, key string) []string {
	t.Helper()
	var out []string
	for i, v := range arr(t, m, key) {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%s[%d]: got %s, want a string", key, i, mustJSON(v))
		}
		out = append(out, s)
	}
	return out
}

func hasKey(m M, key string) bool {
	_, ok := m[key]
	return ok
}

var (
	canonicalID = regexp.MustCompile(`^[0-9a-f]{32}$`)
	wireTime    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
)

// wire renders tm the way every tool renders timestamps.
func wire(tm time.Time) string { return tm.UTC().Format("2006-01-02T15:04:05Z") }

// hyphenated renders a canonical id in the 36-character UUID form.
func hyphenated(id string) string {
	return id[0:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:32]
}
