package vector

import "testing"

// TestKeepPrunedFillsLists: with KeepPruned every node's layer-0 list
// holds at least M neighbours (its own selection is filled to M, and a
// full list pruned by a reverse link is filled to 2·M), where the bare
// heuristic leaves some lists shorter; Tune turns it on for later inserts.
func TestKeepPrunedFillsLists(t *testing.T) {
	vecs := clustered(21, 2000, 16, 0.3)
	short := func(ix *Index, from int) int {
		n := 0
		for id := from; id < len(ix.keys); id++ {
			if len(ix.neighbours(uint32(id), 0)) < ix.o.M {
				n++
			}
		}
		return n
	}
	bare := build(t, vecs, Options{M: 8, EfConstruction: 32, Metric: L2})
	if short(bare, 0) == 0 {
		t.Fatal("the bare heuristic filled every list: the data does not exercise KeepPruned")
	}
	kept := build(t, vecs, Options{M: 8, EfConstruction: 32, Metric: L2, KeepPruned: true})
	if n := short(kept, 0); n != 0 {
		t.Errorf("%d of %d lists shorter than M with KeepPruned", n, len(vecs))
	}
	tuned := build(t, vecs[:1000], Options{M: 8, EfConstruction: 32, Metric: L2})
	tuned.Tune(Options{EfConstruction: 32, KeepPruned: true})
	for i, v := range vecs[1000:] {
		if err := tuned.Add(uint64(1000+i), v); err != nil {
			t.Fatal(err)
		}
	}
	if n := short(tuned, 1000); n != 0 {
		t.Errorf("%d of the 1,000 nodes inserted after Tune have lists shorter than M", n)
	}
	if tuned.o.EfSearch != DefaultEfSearch {
		t.Errorf("Tune left efSearch %d, want the default %d", tuned.o.EfSearch, DefaultEfSearch)
	}
}
