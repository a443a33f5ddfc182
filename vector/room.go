package vector

import "slices"

// room returns s with capacity for extra more elements. The node arrays
// (vectors, codes, layer-0 lists) grow by an eighth when full, where
// append grows a large slice by a quarter plus rounding: a full index
// keeps on average half the last step unused, and the vectors and lists
// are 90 % of its heap. Measured 2026-12-03 (30k clustered 100-d vectors
// added one by one): append left capacity at 1.18 times the length of
// vectors and 1.17 of lists (712 B per node); growing by an eighth keeps
// at most 1.125 and on average 1.06, for about 8 extra copies of each
// element over the life of the index (a memmove of 40 MB every eighth of
// growth at 100k, negligible next to an insert's graph search).
func room[T any](s []T, extra int) []T {
	n := len(s) + extra
	if n <= cap(s) {
		return s
	}
	c := n + max(n/8, minRoom)
	t := make([]T, len(s), c)
	copy(t, s)
	return t
}

// minRoom is the least growth, so that a small index does not copy on
// every insert.
const minRoom = 4096

// trimMin is the least unused capacity Trim hands back: below it a copy
// of the node arrays costs more than the memory is worth. A variable for
// the tests.
var trimMin int64 = 1 << 20

// Trim hands back the node arrays' unused capacity (room's eighth, at
// most, and on average half that) and returns the bytes it freed, once a
// collection runs. Why: a million-entry load left the vector index 31
// MiB above its size after a restart from a snapshot (288 against 257
// MiB of Go heap, the 1M bench's RSS after the searches 664 MiB, 2026-12-06),
// which the snapshot's exact sizes do not have. The arrays are copied
// under the read lock, so searches go on, and swapped in under the write
// lock only if no write came meanwhile (0 then: the next idle spell tries
// again). Peak memory grows by the arrays' size while they are copied.
func (ix *Index) Trim() int64 {
	ix.mu.RLock()
	if ix.slack() < trimMin {
		ix.mu.RUnlock()
		return 0
	}
	seen := ix.writes
	t := nodeArrays{
		vecs: exact(ix.vecs), bytes8: exact(ix.bytes8), scale8: exact(ix.scale8), codes: exact(ix.codes),
		keys: exact(ix.keys), levels: exact(ix.levels), links0: exact(ix.links0),
		dead: exact(ix.dead), freed: exact(ix.freed), free: exact(ix.free),
	}
	freed := ix.slack()
	ix.mu.RUnlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.writes != seen {
		return 0
	}
	ix.vecs, ix.bytes8, ix.scale8, ix.codes = t.vecs, t.bytes8, t.scale8, t.codes
	ix.keys, ix.levels, ix.links0 = t.keys, t.levels, t.links0
	ix.dead, ix.freed, ix.free = t.dead, t.freed, t.free
	return freed
}

// nodeArrays are the per-node arrays Trim copies.
type nodeArrays struct {
	vecs        []float32
	bytes8      []int8
	scale8      []float32
	codes       []byte
	keys        []uint64
	levels      []uint8
	links0      []uint32
	dead, freed bitset
	free        []uint32
}

// slack is the node arrays' unused capacity in bytes. The caller holds
// the lock.
func (ix *Index) slack() int64 {
	return unused(ix.vecs, 4) + unused(ix.bytes8, 1) + unused(ix.scale8, 4) + unused(ix.codes, 1) +
		unused(ix.keys, 8) + unused(ix.levels, 1) + unused(ix.links0, 4) +
		unused(ix.dead, 8) + unused(ix.freed, 8) + unused(ix.free, 4)
}

func unused[S ~[]T, T any](s S, size int) int64 { return int64(cap(s)-len(s)) * int64(size) }

// exact is s in an array of its length (s itself when it has no unused
// capacity; nil stays nil).
func exact[S ~[]T, T any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return slices.Clip(append(S(make([]T, 0, len(s))), s...))
}
