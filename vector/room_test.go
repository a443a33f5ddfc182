package vector

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
)

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

// Trim leaves every node array at its length and the index answering as
// before, and later inserts grow it again.
func TestTrimKeepsIndex(t *testing.T) {
	defer func(m int64) { trimMin = m }(trimMin)
	trimMin = 1
	vecs := clustered(7, 3000, 16, 0.6)
	ix := build(t, vecs[:2500], Options{Seed: 3})
	want := searchAll(t, ix, vecs[2500:2600])
	slack := ix.slack()
	if slack == 0 {
		t.Fatal("no unused capacity to trim after 2,500 inserts")
	}
	budget := int64(math.MaxInt64)
	if got := ix.Trim(&budget); got != slack {
		t.Fatalf("Trim freed %d bytes, want the %d unused", got, slack)
	}
	if ix.slack() != 0 || cap(ix.vecs) != len(ix.vecs) || cap(ix.links0) != len(ix.links0) {
		t.Fatalf("unused capacity left: %d bytes", ix.slack())
	}
	if got := searchAll(t, ix, vecs[2500:2600]); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatal("search results changed by Trim")
	}
	if ix.Trim(&budget) != 0 {
		t.Fatal("a second Trim freed memory")
	}
	twin := build(t, vecs, Options{Seed: 3})
	for i, v := range vecs[2500:] {
		if err := ix.Add(uint64(2500+i), v); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := searchAll(t, ix, vecs[:100]), searchAll(t, twin, vecs[:100]); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatal("an index trimmed midway answers unlike one built without")
	}
}

// Trim copies only what its budget holds: an array whose copy does not
// fit keeps its capacity, and the copies made never pass the budget.
func TestTrimWithinBudget(t *testing.T) {
	defer func(m int64) { trimMin = m }(trimMin)
	trimMin = 1
	ix := build(t, clustered(13, 2500, 16, 0.6), Options{Seed: 7})
	vecBytes, linkBytes := int64(len(ix.vecs))*4, int64(len(ix.links0))*4
	if cap(ix.vecs) == len(ix.vecs) || cap(ix.links0) == len(ix.links0) {
		t.Fatal("no unused capacity in the vectors or the lists")
	}
	zero := int64(0)
	if ix.Trim(&zero) != 0 || cap(ix.vecs) == len(ix.vecs) {
		t.Fatal("Trim copied with no budget")
	}
	// Room for the lists (the larger array) and what is smaller, not for
	// the vectors too.
	budget := max(linkBytes, vecBytes) + int64(len(ix.keys))*8 + int64(len(ix.levels)) + 1024
	start := budget
	if ix.Trim(&budget) == 0 {
		t.Fatal("nothing trimmed within a budget for the larger array")
	}
	if budget < 0 {
		t.Fatalf("copies spent %d bytes of a %d budget", start-budget, start)
	}
	if both := cap(ix.vecs) == len(ix.vecs) && cap(ix.links0) == len(ix.links0); both {
		t.Fatal("both large arrays were copied within a budget for one of them")
	}
}

// A Trim racing inserts never swaps in arrays copied before a write: the
// index ends as the one built without it (run with -race too).
func TestTrimDuringWrites(t *testing.T) {
	defer func(m int64) { trimMin = m }(trimMin)
	trimMin = 1
	vecs := clustered(11, 2000, 16, 0.6)
	ix := build(t, vecs[:1000], Options{Seed: 5})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	trims := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				budget := int64(math.MaxInt64)
				if ix.Trim(&budget) > 0 {
					trims++
				}
			}
		}
	}()
	for i, v := range vecs[1000:] {
		if err := ix.Add(uint64(1000+i), v); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			ix.Delete(uint64(i))
		}
	}
	close(stop)
	wg.Wait()
	twin := build(t, vecs[:1000], Options{Seed: 5})
	for i, v := range vecs[1000:] {
		if err := twin.Add(uint64(1000+i), v); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			twin.Delete(uint64(i))
		}
	}
	if got, want := searchAll(t, ix, vecs[:200]), searchAll(t, twin, vecs[:200]); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("the index trimmed %d times during writes answers unlike its twin", trims)
	}
}

func searchAll(t *testing.T, ix *Index, qs [][]float32) [][]Hit {
	t.Helper()
	out := make([][]Hit, len(qs))
	for i, q := range qs {
		hs, err := ix.Search(context.Background(), q, 10, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = hs
	}
	return out
}
