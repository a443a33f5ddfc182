package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

// metaStore holds the dataset of T-036..T-045: status
// active/pending/active/completed/error, priority 5/3/8/1/10, agent_name on
// the first three, plus one entry with null metadata (entry 6).
func metaStore(t *testing.T) *Store {
	s := openMem(t)
	ms := []any{
		map[string]any{"status": "active", "priority": 5, "agent_name": "planner",
			"technologies": []any{"python", "go"}, "flag": true,
			"user": map[string]any{"preferences": map[string]any{"theme": "dark"}}},
		map[string]any{"status": "pending", "priority": 3, "agent_name": "coder",
			"x": nil, "code": "5000", "technologies": "python"},
		map[string]any{"status": "active", "priority": 8, "agent_name": "reviewer",
			"title": "café", "technologies": []any{5, "7"}, "code": "50%"},
		map[string]any{"status": "completed", "priority": 1, "technologies": map[string]any{"python": true},
			"n": "12", "flag": 1, "ratio": 0.5},
		map[string]any{"status": "error", "priority": 10, "flag": "true", "nums": []any{"5"}},
		nil,
	}
	var es []persist.Entry
	for i, m := range ms {
		e := entry(i+1, "t", "user", "alice")
		e.Metadata = meta(t, m)
		es = append(es, e)
	}
	insert(t, s, es, nil)
	return s
}

func TestMetadataOperators(t *testing.T) {
	s := metaStore(t)
	acc := persist.Access{Principal: "alice"}
	c := func(key, op string, v any) persist.MetaCond {
		return persist.MetaCond{Path: strings.Split(key, "."), Op: op, Value: v}
	}
	cs := func(m persist.MetaCond) persist.MetaCond { m.CaseSensitive = true; return m }
	in := func(key, op string, vs ...any) persist.MetaCond {
		return persist.MetaCond{Path: strings.Split(key, "."), Op: op, Values: vs}
	}
	tests := []struct {
		name  string
		conds []persist.MetaCond
		want  []int // entry numbers
	}{
		{"eq insensitive", []persist.MetaCond{c("status", "eq", "ACTIVE")}, []int{1, 3}},
		{"eq case sensitive miss", []persist.MetaCond{cs(c("status", "eq", "ACTIVE"))}, nil},
		{"eq case sensitive hit", []persist.MetaCond{cs(c("status", "eq", "active"))}, []int{1, 3}},
		{"eq ascii fold only", []persist.MetaCond{c("title", "eq", "CAFÉ")}, nil},
		{"eq ascii fold", []persist.MetaCond{c("title", "eq", "CAFé")}, []int{3}},
		{"gt 5", []persist.MetaCond{c("priority", "gt", int64(5))}, []int{3, 5}},
		{"gte 5", []persist.MetaCond{c("priority", "gte", int64(5))}, []int{1, 3, 5}},
		{"lt 5", []persist.MetaCond{c("priority", "lt", int64(5))}, []int{2, 4}},
		{"lte 5", []persist.MetaCond{c("priority", "lte", 5.0)}, []int{1, 2, 4}},
		{"gt number never string", []persist.MetaCond{c("n", "gt", int64(5))}, nil},
		{"gt string byte order", []persist.MetaCond{c("n", "gt", "1")}, []int{4}},
		{"gt string never number", []persist.MetaCond{c("priority", "gt", "0")}, nil},
		{"gt string status", []persist.MetaCond{c("status", "gt", "d")}, []int{2, 5}},
		{"gt float", []persist.MetaCond{c("ratio", "gt", 0.25)}, []int{4}},
		{"eq string vs number", []persist.MetaCond{c("priority", "eq", "5")}, nil},
		{"eq number", []persist.MetaCond{c("priority", "eq", int64(5))}, []int{1}},
		{"eq float equals int", []persist.MetaCond{c("priority", "eq", 5.0)}, []int{1}},
		{"eq true only json true", []persist.MetaCond{c("flag", "eq", true)}, []int{1}},
		{"eq false", []persist.MetaCond{c("flag", "eq", false)}, nil},
		{"ne active", []persist.MetaCond{c("status", "ne", "active")}, []int{2, 4, 5}},
		{"ne case sensitive", []persist.MetaCond{cs(c("status", "ne", "ACTIVE"))}, []int{1, 2, 3, 4, 5}},
		{"ne number", []persist.MetaCond{c("priority", "ne", int64(5))}, []int{2, 3, 4, 5}},
		{"ne true same type only", []persist.MetaCond{c("flag", "ne", true)}, nil},
		{"ne false", []persist.MetaCond{c("flag", "ne", false)}, []int{1}},
		{"in strings", []persist.MetaCond{in("status", "in", "active", "pending")}, []int{1, 2, 3}},
		{"in folded", []persist.MetaCond{in("status", "in", "ACTIVE")}, []int{1, 3}},
		{"in case sensitive", []persist.MetaCond{cs(in("status", "in", "ACTIVE", "pending"))}, []int{2}},
		{"not_in strings", []persist.MetaCond{in("status", "not_in", "active", "pending")}, []int{4, 5}},
		{"in numbers", []persist.MetaCond{in("priority", "in", int64(5), int64(10))}, []int{1, 5}},
		{"in typed members", []persist.MetaCond{in("status", "in", "active", int64(3))}, []int{1, 3}},
		{"not_in numbers", []persist.MetaCond{in("priority", "not_in", int64(5), int64(10))}, []int{2, 3, 4}},
		{"not_in excludes json null", []persist.MetaCond{in("x", "not_in", int64(1))}, nil},
		{"in bools", []persist.MetaCond{in("flag", "in", true, "true")}, []int{1, 5}},
		{"exists", []persist.MetaCond{c("agent_name", "exists", nil)}, []int{1, 2, 3}},
		{"not_exists", []persist.MetaCond{c("agent_name", "not_exists", nil)}, []int{4, 5, 6}},
		{"not_exists counts json null", []persist.MetaCond{c("x", "not_exists", nil)}, []int{1, 2, 3, 4, 5, 6}},
		{"exists not json null", []persist.MetaCond{c("x", "exists", nil)}, nil},
		{"is_null", []persist.MetaCond{c("x", "is_null", nil)}, []int{2}},
		{"is_null missing", []persist.MetaCond{c("agent_name", "is_null", nil)}, nil},
		{"is_not_null", []persist.MetaCond{c("agent_name", "is_not_null", nil)}, []int{1, 2, 3}},
		{"is_not_null json null", []persist.MetaCond{c("x", "is_not_null", nil)}, nil},
		{"contains literal percent", []persist.MetaCond{c("code", "contains", "50%")}, []int{3}},
		{"contains underscore literal", []persist.MetaCond{c("code", "contains", "5_")}, nil},
		{"contains", []persist.MetaCond{c("agent_name", "contains", "plan")}, []int{1}},
		{"contains folded", []persist.MetaCond{c("agent_name", "contains", "PLAN")}, []int{1}},
		{"contains case sensitive", []persist.MetaCond{cs(c("agent_name", "contains", "PLAN"))}, nil},
		{"contains empty", []persist.MetaCond{c("agent_name", "contains", "")}, []int{1, 2, 3}},
		{"contains never number", []persist.MetaCond{c("priority", "contains", "5")}, nil},
		{"starts_with", []persist.MetaCond{c("agent_name", "starts_with", "CO")}, []int{2}},
		{"starts_with longer", []persist.MetaCond{c("agent_name", "starts_with", "plannerX")}, nil},
		{"ends_with", []persist.MetaCond{c("agent_name", "ends_with", "ER")}, []int{1, 2, 3}},
		{"ends_with case sensitive", []persist.MetaCond{cs(c("agent_name", "ends_with", "ER"))}, nil},
		{"ends_with multibyte", []persist.MetaCond{c("title", "ends_with", "FÉ")}, nil},
		{"ends_with multibyte hit", []persist.MetaCond{c("title", "ends_with", "Fé")}, []int{3}},
		{"ends_with longer", []persist.MetaCond{c("agent_name", "ends_with", "xcoder")}, nil},
		{"array_contains folded", []persist.MetaCond{c("technologies", "array_contains", "PYTHON")}, []int{1}},
		{"array_contains case sensitive", []persist.MetaCond{cs(c("technologies", "array_contains", "PYTHON"))}, nil},
		{"array_contains number", []persist.MetaCond{c("technologies", "array_contains", int64(5))}, []int{3}},
		{"array_contains number not string", []persist.MetaCond{c("nums", "array_contains", int64(5))}, nil},
		{"array_contains string not number", []persist.MetaCond{c("technologies", "array_contains", "5")}, nil},
		{"array_contains string member", []persist.MetaCond{c("nums", "array_contains", "5")}, []int{5}},
		{"array_contains missing", []persist.MetaCond{c("nope", "array_contains", "x")}, nil},
		{"array_contains scalar", []persist.MetaCond{c("status", "array_contains", "active")}, nil},
		{"nested path", []persist.MetaCond{c("user.preferences.theme", "eq", "DARK")}, []int{1}},
		{"nested missing", []persist.MetaCond{c("user.preferences.font", "exists", nil)}, nil},
		{"and combined", []persist.MetaCond{c("status", "eq", "active"), c("priority", "gt", int64(6))}, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, s, acc, persist.SearchQuery{Filter: persist.Filter{Meta: tc.conds}})
			var want []string
			for i := len(tc.want) - 1; i >= 0; i-- { // newest first
				want = append(want, tid(tc.want[i]))
			}
			if !eqStrings(idsOf(got), want) {
				t.Fatalf("got %v, want %v", idsOf(got), want)
			}
		})
	}
}

func TestMetadataErrors(t *testing.T) {
	s := metaStore(t)
	acc := persist.Access{Principal: "alice"}
	tests := []struct {
		name string
		cond persist.MetaCond
	}{
		{"empty path", persist.MetaCond{Op: "eq", Value: "x"}},
		{"quote in segment", persist.MetaCond{Path: []string{`a"b`}, Op: "eq", Value: "x"}},
		{"unknown operator", persist.MetaCond{Path: []string{"a"}, Op: "regex", Value: "x"}},
		{"eq null", persist.MetaCond{Path: []string{"a"}, Op: "eq"}},
		{"gt bool", persist.MetaCond{Path: []string{"a"}, Op: "gt", Value: true}},
		{"contains number", persist.MetaCond{Path: []string{"a"}, Op: "contains", Value: int64(1)}},
		{"bad value type", persist.MetaCond{Path: []string{"a"}, Op: "eq", Value: []int{1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Search(context.Background(), acc, persist.SearchQuery{
				Filter: persist.Filter{Meta: []persist.MetaCond{tc.cond}}})
			if err == nil || !strings.HasPrefix(err.Error(), "sqlite: ") {
				t.Fatalf("err = %v, want a sqlite: error", err)
			}
		})
	}
	// A single quote in a segment is escaped, not an injection.
	got := search(t, s, acc, persist.SearchQuery{Filter: persist.Filter{Meta: []persist.MetaCond{
		{Path: []string{"a') OR 1=1 --"}, Op: "exists"}}}})
	if len(got) != 0 {
		t.Fatalf("quoted segment matched %d entries", len(got))
	}
}
