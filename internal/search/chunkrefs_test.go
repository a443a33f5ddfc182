package search

import (
	"math/rand/v2"
	"testing"
)

// TestChunkRefsOracle: random puts and deletes of dense, clustered and
// scattered keys answer as a Go map does, and the pages stay within the
// occupancy rule whatever the keys.
func TestChunkRefsOracle(t *testing.T) {
	for _, pattern := range []string{"dense", "clustered", "scattered", "dense then thinned"} {
		r := rand.New(rand.NewPCG(7, uint64(len(pattern))))
		t.Run(pattern, func(t *testing.T) {
			refs, want := newChunkRefs(), map[uint64]chunkRef{}
			next := uint64(1)
			key := func() uint64 {
				switch pattern {
				case "clustered":
					return uint64(r.IntN(8))<<30 | uint64(r.IntN(4000))
				case "scattered":
					return r.Uint64()
				}
				next++
				return next
			}
			check := func(k uint64) {
				got, ok := refs.get(k)
				w, wok := want[k]
				if ok != wok || got != w {
					t.Fatalf("key %d: %v %v, want %v %v", k, got, ok, w, wok)
				}
			}
			for i := range 60_000 {
				del := r.IntN(4) == 0
				if pattern == "dense then thinned" && i > 30_000 {
					del = r.IntN(10) < 6
				}
				if del && len(want) > 0 {
					var k uint64
					for k = range want {
						break
					}
					refs.del(k)
					delete(want, k)
					check(k)
					continue
				}
				k := key()
				v := chunkRef{ord: uint32(i), index: uint32(r.IntN(5)), start: uint32(i), end: uint32(i + 9)}
				_, had := want[k]
				if added := refs.set(k, v); added == had {
					t.Fatalf("set %d: added %v with the key present %v", k, added, had)
				}
				want[k] = v
				check(k)
				if refs.len() != len(want) {
					t.Fatalf("len %d, want %d", refs.len(), len(want))
				}
				if pages := len(refs.pages); pages > refPagesFree && (pages-refPagesFree)*refPageKeys > 8*refs.inPg {
					t.Fatalf("%d pages for %d keys in pages", pages, refs.inPg)
				}
			}
			for k := range want {
				check(k)
			}
			for i := range 1000 {
				check(uint64(i) * 7919)
			}
			n := 0
			for _, p := range refs.pages {
				n += p.n
			}
			if n != refs.inPg || n+len(refs.spill) != refs.n {
				t.Fatalf("counts: pages %d, inPg %d, spill %d, n %d", n, refs.inPg, len(refs.spill), refs.n)
			}
			t.Logf("%s: %d keys, %d pages, %d spilled", pattern, refs.n, len(refs.pages), len(refs.spill))
		})
	}
}
