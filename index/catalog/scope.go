package catalog

import (
	"slices"
)

// Access scopes. An entry's scope is its exact visibility: public, or its
// owner with its sorted, distinct user and group grants. Whoever may read
// one entry of a scope may read every entry of it (READ depends on
// nothing else), so an index partitioned by scope (the vector index's
// graphs, internal/search/vecpart.go) answers a caller from the scopes it
// may read alone, whatever other principals store elsewhere.

// publicScope is the scope of every public entry; a private scope starts
// with 'o', so the two never meet.
const publicScope = "*"

// ScopeOf is e's scope key.
func ScopeOf(e *Entry) string {
	k, _ := keyOf(Entry{Owner: e.Owner, Public: e.Public, Readers: e.Readers}, nil)
	return k.scope()
}

// Scopes calls fn with each live ordinal and its scope key, in ordinal
// order; the key is computed once per shape.
func (c *Catalog) Scopes(fn func(ord uint32, scope string)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	memo := map[uint32]string{}
	for i := range c.slots {
		n := c.slots[i].shape
		if n == 0 {
			continue
		}
		s, ok := memo[n]
		if !ok {
			s = c.shapes.recs[n].key.scope()
			memo[n] = s
		}
		fn(uint32(i), s)
	}
}

// scope is the scope key of a shape: "*" when public, else 'o', the
// owner, and the sorted distinct user grants and group grants, each
// list's elements length-prefixed (appendString) and the lists told
// apart by a 'u' or 'g' before each element.
func (k *shapeKey) scope() string {
	if k.public {
		return publicScope
	}
	b := appendString([]byte{'o'}, k.owner.Value())
	for _, l := range [...]struct {
		tag byte
		enc string
	}{{'u', k.users}, {'g', k.groups}} {
		var names []string
		for s := range strs(l.enc) {
			names = append(names, s)
		}
		slices.Sort(names)
		for _, s := range slices.Compact(names) {
			b = appendString(append(b, l.tag), s)
		}
	}
	return string(b)
}
