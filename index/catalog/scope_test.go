package catalog

import "testing"

// TestScopes: an entry's scope is its exact visibility, whatever the
// order or repetition of its grants; ScopeOf and Scopes agree.
func TestScopes(t *testing.T) {
	c := New()
	es := []Entry{
		{ID: "a", Owner: "ann", Readers: []string{"u:bob", "g:eng", "u:bob"}},
		{ID: "b", Owner: "ann", Readers: []string{"g:eng", "u:bob"}, ThreadID: "other", Tags: []string{"x"}},
		{ID: "c", Owner: "ann"},
		{ID: "d", Owner: "bob", Readers: []string{"u:ann", "g:eng"}},
		{ID: "e", Owner: "ann", Readers: []string{"g:bob"}}, // a group named like a user
		{ID: "f", Owner: "ann", Public: true},
		{ID: "g", Owner: "bob", Public: true, Readers: []string{"u:ann"}},
	}
	for i := range es {
		c.Put(es[i])
	}
	got := map[string]string{}
	c.Scopes(func(ord uint32, scope string) {
		id, _ := c.ID(ord)
		got[id] = scope
	})
	for i := range es {
		if s := ScopeOf(&es[i]); s != got[es[i].ID] {
			t.Fatalf("%s: ScopeOf %q, Scopes %q", es[i].ID, s, got[es[i].ID])
		}
	}
	same := [][2]string{{"a", "b"}, {"f", "g"}}
	differ := [][2]string{{"a", "c"}, {"a", "d"}, {"a", "e"}, {"c", "f"}, {"e", "c"}}
	for _, p := range same {
		if got[p[0]] != got[p[1]] {
			t.Fatalf("%s and %s: scopes %q and %q, want one", p[0], p[1], got[p[0]], got[p[1]])
		}
	}
	for _, p := range differ {
		if got[p[0]] == got[p[1]] {
			t.Fatalf("%s and %s share scope %q", p[0], p[1], got[p[0]])
		}
	}
}
