package catalog

import (
	"math"
	"testing"
)

// TestName: Name spells the id of each live ordinal, packed (the server's
// 32 hex digits) or not, and leaves a removed or unknown
// ordinal's hit unnamed, as ID reports it.
func TestName(t *testing.T) {
	c := New()
	ids := []string{"0190a3b2c4d5e6f708192a3b4c5d6e7f", "note-7", "0190a3b2c4d5e6f708192a3b4c5d6e80", "Plain ID"}
	var ords []uint32
	for _, id := range ids {
		ords = append(ords, c.Put(Entry{ID: id, Owner: "ann", ThreadID: "t"}))
	}
	if !c.Remove(ids[2]) {
		t.Fatal("remove")
	}
	type hit struct {
		ord uint32
		id  string
	}
	hits := []hit{{ord: ords[3]}, {ord: ords[2]}, {ord: ords[0]}, {ord: math.MaxUint32}, {ord: ords[1]}, {ord: ords[0]}}
	Name(c, hits, func(h *hit) uint32 { return h.ord }, func(h *hit, id string) { h.id = id })
	want := []string{ids[3], "", ids[0], "", ids[1], ids[0]}
	for i, h := range hits {
		if h.id != want[i] {
			t.Errorf("hit %d (ordinal %d): named %q, want %q", i, h.ord, h.id, want[i])
		}
		if id, _ := c.ID(h.ord); id != want[i] {
			t.Errorf("hit %d: ID says %q, Name %q", i, id, h.id)
		}
	}
}
