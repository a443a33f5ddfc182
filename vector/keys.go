package vector

// Keys returns the live keys of the index in no particular order: what a
// caller reconciles with its source of truth after loading a snapshot.
func (ix *Index) Keys() []uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]uint64, 0, ix.live)
	for id, k := range ix.keys {
		if !ix.dead.has(uint32(id)) {
			out = append(out, k)
		}
	}
	return out
}

// keyTable maps the live keys to their nodes: open addressing with linear
// probing over node ids, the key of a slot being read from Index.keys.
// A slot is 4 bytes and the table is kept between 3/8 and 3/4 full, so a
// key costs 5-11 bytes where Go's map[uint64]uint32 took 16-byte slots
// (8 + 4 + padding) at a load of 7/16 to 7/8, about 26 bytes a key
// (BenchmarkIndexHeap, 30k nodes, 2026-12-03, AMD EPYC 2 cores,
// go1.26.8: 634 -> 605 B a node). Only writers, Contains and the
// snapshot's reader look keys up; searches go by node. Insertion CPU was
// unchanged (BenchmarkBuildStorage, 30k, 3 interleaved rounds: 144 µs
// median before, 147 after, within the load's noise).
type keyTable struct {
	slots []uint32 // node id + 1; 0 is an empty slot
	n     int
}

// mix is a 64-bit finaliser (MurmurHash3's fmix64): row ids are
// sequential, and their low bits alone would cluster the probes.
func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

func (t *keyTable) len() int { return t.n }

// find returns the slot of key, or of the empty slot that ends its probe.
func (t *keyTable) find(keys []uint64, key uint64) (int, bool) {
	mask := len(t.slots) - 1
	for i := int(mix(key)) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i, false
		}
		if keys[s-1] == key {
			return i, true
		}
	}
}

// get returns key's node.
func (t *keyTable) get(keys []uint64, key uint64) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	i, ok := t.find(keys, key)
	if !ok {
		return 0, false
	}
	return t.slots[i] - 1, true
}

// put records node id, whose key keys[id] is not in the table.
func (t *keyTable) put(keys []uint64, id uint32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow(keys)
	}
	i, _ := t.find(keys, keys[id])
	t.slots[i] = id + 1
	t.n++
}

func (t *keyTable) grow(keys []uint64) {
	old := t.slots
	t.slots = make([]uint32, max(16, 2*len(old)))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(mix(keys[s-1])) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// del removes key (keys[its node] must still be key) and reports whether
// it was there. The slots after it in its run move back (backward-shift
// deletion), so no tombstones lengthen later probes.
func (t *keyTable) del(keys []uint64, key uint64) bool {
	if t.n == 0 {
		return false
	}
	i, ok := t.find(keys, key)
	if !ok {
		return false
	}
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		home := int(mix(keys[t.slots[j]-1])) & mask
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
	return true
}
