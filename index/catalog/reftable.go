package catalog

// refTable is an open-addressing hash index of uint32 references (an
// ordinal, a shape number) whose keys live elsewhere: the id of an
// ordinal is in its slot, a shape's fields in its record. A cell is 4
// bytes and the table is at most half full, so an indexed key costs 8-16
// bytes where a Go map from id string to ordinal, which stores a copy of
// the 16-byte string header and the value beside a control byte and
// grows by doubling, held about 40 (BenchmarkCatalogMemory, README
// "Performance").
//
// Linear probing; a removal shifts the later cells of its run back
// instead of leaving a tombstone, so a lookup stops at the first empty
// cell whatever the history of removals. The caller supplies the hash of
// the key looked up, a test of a reference against that key, and (for
// growth and removal, which move cells) the hash of a stored reference.
type refTable struct {
	cells []uint32 // reference+1; 0 is an empty cell
	n     int
}

// find returns the reference whose key eq accepts, looked up by the key's
// hash h.
func (t *refTable) find(h uint64, eq func(uint32) bool) (uint32, bool) {
	if i := t.pos(h, eq); i >= 0 {
		return t.cells[i] - 1, true
	}
	return 0, false
}

// pos is the cell of the reference eq accepts; -1 when none.
func (t *refTable) pos(h uint64, eq func(uint32) bool) int {
	if len(t.cells) == 0 {
		return -1
	}
	mask := uint64(len(t.cells) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		v := t.cells[i]
		if v == 0 {
			return -1
		}
		if eq(v - 1) {
			return int(i)
		}
	}
}

// insert adds ref, whose key hashes to h and is not in the table.
func (t *refTable) insert(h uint64, ref uint32, hashOf func(uint32) uint64) {
	if (t.n+1)*2 > len(t.cells) {
		t.grow(hashOf)
	}
	t.place(h, ref+1)
	t.n++
}

// place puts the cell value v in the first empty cell from h's home.
func (t *refTable) place(h uint64, v uint32) {
	mask := uint64(len(t.cells) - 1)
	i := h & mask
	for t.cells[i] != 0 {
		i = (i + 1) & mask
	}
	t.cells[i] = v
}

func (t *refTable) grow(hashOf func(uint32) uint64) {
	old := t.cells
	t.cells = make([]uint32, max(16, 2*len(old)))
	for _, v := range old {
		if v != 0 {
			t.place(hashOf(v-1), v)
		}
	}
}

// remove deletes the reference eq accepts (its key hashes to h); false
// when there is none.
func (t *refTable) remove(h uint64, eq func(uint32) bool, hashOf func(uint32) uint64) bool {
	at := t.pos(h, eq)
	if at < 0 {
		return false
	}
	t.n--
	mask := uint64(len(t.cells) - 1)
	hole := uint64(at)
	// Move back every later cell of the run whose home is not in the
	// cyclic range (hole, j]: it was placed past the hole, so a lookup
	// from its home would otherwise stop at the hole.
	for j := (hole + 1) & mask; t.cells[j] != 0; j = (j + 1) & mask {
		home := hashOf(t.cells[j]-1) & mask
		var stays bool
		if hole <= j {
			stays = hole < home && home <= j
		} else {
			stays = hole < home || home <= j
		}
		if !stays {
			t.cells[hole] = t.cells[j]
			hole = j
		}
	}
	t.cells[hole] = 0
	return true
}

// reserve sizes an empty table for n references without growth.
func (t *refTable) reserve(n int) {
	if t.n > 0 {
		return
	}
	size := 16
	for size < 2*n {
		size *= 2
	}
	t.cells = make([]uint32, size)
}
