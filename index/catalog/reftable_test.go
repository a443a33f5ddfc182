package catalog

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestRefTableOracle: a refTable answers every lookup as a Go map does
// through a random history of inserts and removes, with a good hash and
// with hashes that collide on purpose (few distinct homes, so runs wrap
// around the end of the table and removals shift long runs back).
func TestRefTableOracle(t *testing.T) {
	seed := maphash.MakeSeed()
	for name, hash := range map[string]func(string) uint64{
		"maphash":  func(s string) uint64 { return maphash.String(seed, s) },
		"collide4": func(s string) uint64 { return maphash.String(seed, s)%4 + 1<<40 - 2 },
		"one home": func(string) uint64 { return 7 },
	} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			var tab refTable
			keys := []string{} // ref -> key
			want := map[string]uint32{}
			hashOf := func(ref uint32) uint64 { return hash(keys[ref]) }
			find := func(k string) (uint32, bool) {
				return tab.find(hash(k), func(ref uint32) bool { return keys[ref] == k })
			}
			for i := range 4000 {
				k := fmt.Sprintf("k%d", r.IntN(600))
				switch ref, ok := want[k]; {
				case !ok:
					ref = uint32(len(keys))
					keys = append(keys, k)
					tab.insert(hash(k), ref, hashOf)
					want[k] = ref
				case r.IntN(2) == 0:
					if !tab.remove(hash(k), func(x uint32) bool { return x == ref }, hashOf) {
						t.Fatalf("op %d: remove %s failed", i, k)
					}
					delete(want, k)
				}
				if tab.n != len(want) || tab.n*2 > len(tab.cells) {
					t.Fatalf("op %d: %d refs in %d cells, want %d", i, tab.n, len(tab.cells), len(want))
				}
				if i%50 == 0 {
					for j := range 600 {
						k := fmt.Sprintf("k%d", j)
						got, ok := find(k)
						w, wok := want[k]
						if ok != wok || ok && got != w {
							t.Fatalf("op %d: find %s = %d,%v, want %d,%v", i, k, got, ok, w, wok)
						}
					}
				}
			}
			if tab.remove(hash("absent"), func(uint32) bool { return false }, hashOf) {
				t.Fatal("removed an absent key")
			}
		})
	}
}
