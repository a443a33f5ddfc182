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
