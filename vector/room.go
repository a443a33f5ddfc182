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
// which the snapshot's exact sizes do not have. Each array is copied
// under the read lock, so searches go on, and swapped in under the write
// lock only if no write came meanwhile (else it keeps its capacity until
// the next idle spell). The copies spend *budget (the memory limit's
// headroom, shared by the indexes trimmed together): an array whose copy
// does not fit keeps its capacity, whether or not a collection frees the
// old arrays between two copies.
func (ix *Index) Trim(budget *int64) int64 {
	ix.mu.RLock()
	slack := ix.slack()
	ix.mu.RUnlock()
	if slack < trimMin {
		return 0
	}
	return trimArray(ix, &ix.vecs, 4, budget) + trimArray(ix, &ix.bytes8, 1, budget) +
		trimArray(ix, &ix.scale8, 4, budget) + trimArray(ix, &ix.codes, 1, budget) +
		trimArray(ix, &ix.keys, 8, budget) + trimArray(ix, &ix.levels, 1, budget) +
		trimArray(ix, &ix.links0, 4, budget) + trimArray(ix, &ix.dead, 8, budget) +
		trimArray(ix, &ix.freed, 8, budget) + trimArray(ix, &ix.free, 4, budget)
}

// trimArray gives the node array *a (elements of size bytes) the length
// of its capacity when a copy fits in *budget, which it spends, and
// returns the bytes freed.
func trimArray[S ~[]T, T any](ix *Index, a *S, size int, budget *int64) int64 {
	ix.mu.RLock()
	s := *a
	spare, need := unused(s, size), int64(len(s))*int64(size)
	if spare == 0 || need > *budget {
		ix.mu.RUnlock()
		return 0
	}
	seen := ix.writes
	c := exact(s)
	ix.mu.RUnlock()
	*budget -= need
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.writes != seen {
		return 0
	}
	*a = c
	return spare
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
