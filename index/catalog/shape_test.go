package catalog

import (
	"slices"
	"testing"
)

// checkShapes verifies the shape table of c against its slots: every
// shape's count is the number of live slots holding it, a shape no slot
// holds is free and unindexed, equal keys are one shape, and every id
// indexes its own ordinal.
func checkShapes(t *testing.T, c *Catalog) {
	t.Helper()
	holders := make([]uint32, len(c.shapes.recs))
	live := 0
	for ord, s := range c.slots {
		if !s.live() {
			continue
		}
		live++
		holders[s.shape]++
		if got, ok := c.lookup(s.id); !ok || got != uint32(ord) {
			t.Fatalf("id %s indexes %d,%v, want %d", s.id, got, ok, ord)
		}
	}
	if c.ords.n != live {
		t.Fatalf("%d ids indexed for %d live slots", c.ords.n, live)
	}
	seen := map[shapeKey]uint32{}
	for n := 1; n < len(c.shapes.recs); n++ {
		r := c.shapes.recs[n]
		if r.refs != holders[n] {
			t.Fatalf("shape %d counts %d holders, has %d", n, r.refs, holders[n])
		}
		if r.refs == 0 {
			if !slices.Contains(c.shapes.free, uint32(n)) {
				t.Fatalf("shape %d is unheld and not free", n)
			}
			continue
		}
		if m, dup := seen[r.key]; dup {
			t.Fatalf("shapes %d and %d are equal", m, n)
		}
		seen[r.key] = uint32(n)
		k := r.key
		if got, ok := c.shapes.idx.find(c.shapes.hash(&k), func(m uint32) bool { return c.shapes.recs[m].key == k }); !ok || got != uint32(n) {
			t.Fatalf("shape %d indexed as %d,%v", n, got, ok)
		}
	}
	if c.shapes.idx.n != len(seen) {
		t.Fatalf("%d shapes indexed, %d held", c.shapes.idx.n, len(seen))
	}
}

// TestShapesAfterHistory: the shape table stays consistent through a
// random history of puts, replacements and removes, and through a
// snapshot.
func TestShapesAfterHistory(t *testing.T) {
	c, _, ids := randomCatalog(newUniverse(9), 3000)
	checkShapes(t, c)
	if len(c.shapes.recs) > c.Len()+len(c.shapes.free)+1 {
		t.Fatalf("%d shape records for %d entries", len(c.shapes.recs), c.Len())
	}
	d, err := Decode(c.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	checkShapes(t, d)
	for _, id := range ids {
		c.Remove(id)
		d.Remove(id)
	}
	checkShapes(t, c)
	checkShapes(t, d)
	if c.shapes.idx.n != 0 || d.shapes.idx.n != 0 {
		t.Fatal("shapes left behind")
	}
}

// TestStrs: encoded lists decode to their elements, empty and long ones
// included (a length past one varint byte).
func TestStrs(t *testing.T) {
	long := string(make([]byte, 300))
	for _, list := range [][]string{nil, {""}, {"a", "", "b"}, {long, "x", long}} {
		var enc []byte
		for _, s := range list {
			enc = appendString(enc, s)
		}
		got := slices.Collect(strs(string(enc)))
		if !slices.Equal(got, list) && len(got)+len(list) > 0 || count(string(enc)) != len(list) {
			t.Fatalf("%q decoded as %q", list, got)
		}
	}
}
