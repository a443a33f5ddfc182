package vector

import (
	"slices"
	"testing"
)

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

// TestCopiesLeaveIsland: 120 copies of one vector among 3,000 others (a
// paragraph stored many times). Before copies were capped in
// selectNeighbours, every copy's layer-0 list held only copies, so a walk
// that descended to one could reach just 2·M+1 nodes and a search for
// more than that fell back to the exact scan. AddBatch (the rebuild at
// start-up) selects with the same function.
func TestCopiesLeaveIsland(t *testing.T) {
	const copies = 120
	base := clustered(5, 3000, 16, 0.3)
	vecs := make([][]float32, 0, len(base)+copies)
	dup := base[0]
	for i, v := range base {
		vecs = append(vecs, v)
		if i%25 == 0 && len(vecs) < len(base)+copies {
			vecs = append(vecs, dup)
		}
	}
	for len(vecs) < len(base)+copies {
		vecs = append(vecs, dup)
	}
	for _, c := range []struct {
		keep, batch bool
	}{{false, false}, {true, false}, {true, true}} {
		keep := c.keep
		o := Options{M: 8, EfConstruction: 32, Metric: L2, KeepPruned: keep}
		var ix *Index
		if c.batch { // the rebuild at start-up (AddBatch) selects alike
			var err error
			if ix, err = New(len(dup), o); err != nil {
				t.Fatal(err)
			}
			items := make([]BatchItem, len(vecs))
			for i, v := range vecs {
				items[i] = BatchItem{Key: uint64(i), Vec: v}
			}
			if err := ix.AddBatch(items); err != nil {
				t.Fatal(err)
			}
		} else {
			ix = build(t, vecs, o)
		}
		minReach := len(vecs)
		for id := range ix.keys {
			if slices.Equal(ix.vec(uint32(id)), dup) {
				minReach = min(minReach, reachable(ix, uint32(id)))
			}
		}
		if minReach < len(vecs)/2 {
			t.Errorf("KeepPruned %v (AddBatch %v): a copy reaches only %d of %d nodes on layer 0", keep, c.batch, minReach, len(vecs))
		}
		// The copies tie at distance 0: the graph must return the same
		// ten as the scan (ties by insertion order).
		if r := recallAt(t, ix, [][]float32{dup}, 10, SearchOptions{}); r < 1 {
			t.Errorf("KeepPruned %v (AddBatch %v): recall@10 of a copied vector %.2f, want 1", keep, c.batch, r)
		}
		s := ix.getScratch()
		z := ix.querierFor(s, dup)
		ep := cand{z.dist(ix.entry), ix.entry}
		for l := ix.maxLevel; l > 0; l-- {
			ep = ix.greedy(z, ep, l)
		}
		all := func(uint32) bool { return true }
		if n := len(ix.searchFiltered(s, z, ep, 200, 200, all)); n < 200 {
			t.Errorf("KeepPruned %v (AddBatch %v): the filtered walk for a copy ran dry at %d of k = 200", keep, c.batch, n)
		}
		ix.scratch.Put(s)
	}
}

// reachable counts the nodes reachable from id on layer 0.
func reachable(ix *Index, id uint32) int {
	seen := map[uint32]bool{id: true}
	todo := []uint32{id}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, x := range ix.neighbours(n, 0) {
			if !seen[x] {
				seen[x] = true
				todo = append(todo, x)
			}
		}
	}
	return len(seen)
}
