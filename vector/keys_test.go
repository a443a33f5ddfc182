package vector

import (
	"math/rand/v2"
	"testing"
)

// TestKeyTableOracle: random puts and deletes (sequential row ids, random
// ones and a narrow range that collides often, node slots reused as the
// index reuses them) leave the key table answering exactly as a Go map,
// through growth and backward-shift deletes across the table's end.
func TestKeyTableOracle(t *testing.T) {
	for _, kind := range []string{"sequential", "random", "narrow"} {
		r := rand.New(rand.NewPCG(5, 5))
		var tab keyTable
		var keys []uint64
		var free []uint32
		want := map[uint64]uint32{}
		next := uint64(1)
		newKey := func() uint64 {
			switch kind {
			case "sequential":
				next++
				return next
			case "random":
				return r.Uint64()
			}
			return uint64(r.IntN(3000))
		}
		for step := range 60_000 {
			if len(want) > 0 && r.IntN(5) < 2 {
				for k, id := range want { // map order: a random live key
					if !tab.del(keys, k) {
						t.Fatalf("%s: del(%d) missed", kind, k)
					}
					delete(want, k)
					free = append(free, id)
					break
				}
			} else {
				k := newKey()
				if _, ok := want[k]; ok {
					continue
				}
				var id uint32
				if n := len(free); n > 0 && r.IntN(2) == 0 {
					id, free = free[n-1], free[:n-1]
					keys[id] = k
				} else {
					id = uint32(len(keys))
					keys = append(keys, k)
				}
				tab.put(keys, id)
				want[k] = id
			}
			if step%5000 == 0 || step > 59_900 {
				if tab.len() != len(want) {
					t.Fatalf("%s: %d keys, want %d", kind, tab.len(), len(want))
				}
				for k, id := range want {
					if got, ok := tab.get(keys, k); !ok || got != id {
						t.Fatalf("%s: get(%d) = %d %v, want %d", kind, k, got, ok, id)
					}
				}
				for _, id := range free {
					if got, ok := tab.get(keys, keys[id]); ok && want[keys[id]] != got {
						t.Fatalf("%s: freed key %d found at %d", kind, keys[id], got)
					}
				}
				if tab.len()*4 > len(tab.slots)*3 {
					t.Fatalf("%s: %d keys in %d slots", kind, tab.len(), len(tab.slots))
				}
			}
		}
		if tab.del(keys, 1<<63+7) {
			t.Fatalf("%s: deleted an absent key", kind)
		}
	}
}
