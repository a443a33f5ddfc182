package vector

import "testing"

// The node arrays of an index built by inserts stay within an eighth (plus
// minRoom) of their length, and growing keeps every element.
func TestRoomBoundsCapacity(t *testing.T) {
	var s []uint32
	for i := range 200_000 {
		s = append(room(s, 3), uint32(i), uint32(i), uint32(i))
		if c, n := cap(s), len(s); c > n+n/8+minRoom+3 {
			t.Fatalf("capacity %d for %d elements", c, n)
		}
	}
	for i, x := range s {
		if x != uint32(i/3) {
			t.Fatalf("element %d is %d after growth, want %d", i, x, i/3)
		}
	}
	vecs := clustered(5, 3000, 16, 0.6)
	ix := build(t, vecs, Options{})
	if c, n := cap(ix.vecs), len(ix.vecs); c > n+n/8+minRoom {
		t.Fatalf("vectors: capacity %d for %d", c, n)
	}
	if c, n := cap(ix.links0), len(ix.links0); c > n+n/8+minRoom {
		t.Fatalf("layer-0 lists: capacity %d for %d", c, n)
	}
}
