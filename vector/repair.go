package vector

// exact scans every live, allowed node and keeps the k nearest: in code
// mode the kk nearest by code distance, re-ranked (rerank) to k.
func (ix *Index) exact(q *querier, k, kk int, allow func(uint64) bool) []Hit {
	k, final := kk, k
	h := make(maxHeap, 0, k+1)
	for i := range ix.keys {
		id := uint32(i)
		if ix.dead.has(id) || (allow != nil && !allow(ix.keys[i])) {
			continue
		}
		d := q.dist(id)
		if len(h) < k {
			h.push(cand{d, id})
		} else if c := (cand{d, id}); c.less(h.top()) {
			h.pop()
			h.push(c)
		}
	}
	res := ix.rerank(q.q, h.sorted())
	return ix.hits(res[:min(final, len(res))])
}

// Repair removes every tombstone from the graph: each live node that links
// to one is reconnected with the selection heuristic over its live
// neighbours and the tombstones' live neighbours (hnswlib's repair), the
// entry point moves to a live node of the top layer, the slots are freed
// for reuse, and any live node no longer reachable on layer 0 from the
// entry point is linked back in. It runs by itself when tombstones pass
// Options.RepairFraction.
func (ix *Index) Repair() {
	ix.lock()
	defer ix.mu.Unlock()
	ix.repair()
}

func (ix *Index) repair() {
	n := len(ix.keys)
	isTomb := func(id uint32) bool { return ix.dead.has(id) && !ix.freed.has(id) }
	if ix.tombs > 0 {
		seen := map[uint32]bool{}
		for i := 0; i < n; i++ {
			u := uint32(i)
			if ix.dead.has(u) {
				continue
			}
			for l := 0; l <= int(ix.levels[u]); l++ {
				ns := ix.neighbours(u, l)
				hasTomb := false
				for _, x := range ns {
					if isTomb(x) {
						hasTomb = true
						break
					}
				}
				if !hasTomb {
					continue
				}
				clear(seen)
				seen[u] = true
				var cs []cand
				add := func(x uint32) {
					if seen[x] || ix.dead.has(x) || int(ix.levels[x]) < l {
						return
					}
					seen[x] = true
					cs = append(cs, cand{ix.pairDist(u, x), x})
				}
				for _, x := range ns {
					if isTomb(x) {
						for _, y := range ix.neighbours(x, l) {
							add(y)
						}
					} else {
						add(x)
					}
				}
				sortByDist(cs)
				chosen := ix.selectNeighbours(cs, ix.capacity(l))
				out := make([]uint32, len(chosen))
				for j, c := range chosen {
					out[j] = c.id
				}
				ix.setNeighbours(u, l, out)
			}
		}
		// A new entry point: the live node with the highest level.
		ix.entry, ix.maxLevel = noNode, 0
		for i := 0; i < n; i++ {
			u := uint32(i)
			if !ix.dead.has(u) && (ix.entry == noNode || int(ix.levels[u]) > ix.maxLevel) {
				ix.entry, ix.maxLevel = u, int(ix.levels[u])
			}
		}
		// Free the tombstones' slots, highest first so reuse fills low ids.
		for i := n - 1; i >= 0; i-- {
			u := uint32(i)
			if !isTomb(u) {
				continue
			}
			b := i * (ix.m0 + 1)
			clear(ix.links0[b : b+ix.m0+1])
			delete(ix.upper, u)
			ix.levels[u] = 0
			ix.freed.set(u)
			ix.free = append(ix.free, u)
		}
		ix.tombs = 0
	}
	ix.reconnect()
}

// reconnect makes every live node reachable on layer 0 from the entry
// point. Pruning can leave a node with no incoming edge; for each such node
// u, the nearest reachable node r found by a graph search gets the edge
// r -> u, and if r's list is full, the neighbour w it replaces is linked
// from u, so everything reachable through w stays reachable (r -> u -> w).
func (ix *Index) reconnect() {
	if ix.entry == noNode {
		return
	}
	n := len(ix.keys)
	reached := make(bitset, (n+63)/64)
	stack := []uint32{ix.entry}
	reached.set(ix.entry)
	walk := func() {
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range ix.neighbours(x, 0) {
				if !reached.has(y) {
					reached.set(y)
					stack = append(stack, y)
				}
			}
		}
	}
	walk()
	s := ix.getScratch()
	defer ix.scratch.Put(s)
	buf := make([]float32, ix.dim)
	for i := 0; i < n; i++ {
		u := uint32(i)
		if ix.dead.has(u) || reached.has(u) {
			continue
		}
		z := ix.querierFor(s, ix.nodeVector(u, buf))
		ep := cand{z.dist(ix.entry), ix.entry}
		for l := ix.maxLevel; l > 0; l-- {
			ep = ix.greedy(z, ep, l)
		}
		w := ix.searchLayer(s, z, []cand{ep}, ix.o.EfConstruction, 0, func(x uint32) bool {
			return x != u && reached.has(x)
		})
		r := ix.entry
		if len(w) > 0 {
			r = w[0].id
		}
		rn := ix.neighbours(r, 0)
		if len(rn) < ix.m0 {
			ix.setNeighbours(r, 0, append(rn[:len(rn):len(rn)], u))
		} else {
			// Replace r's farthest neighbour by u and hang it below u.
			far, fd := 0, float32(-1)
			for j, x := range rn {
				if d := ix.pairDist(r, x); d > fd {
					far, fd = j, d
				}
			}
			wid := rn[far]
			rn[far] = u
			un := ix.neighbours(u, 0)
			if !containsID(un, wid) {
				if len(un) < ix.m0 {
					ix.setNeighbours(u, 0, append(un[:len(un):len(un)], wid))
				} else {
					// u was unreachable, so no reachable node depended on its
					// edges; replacing its farthest keeps everything reachable.
					ufar, ufd := 0, float32(-1)
					for j, x := range un {
						if d := ix.pairDist(u, x); d > ufd {
							ufar, ufd = j, d
						}
					}
					un[ufar] = wid
				}
			}
		}
		reached.set(u)
		stack = append(stack, u)
		walk()
	}
}

func containsID(s []uint32, x uint32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func sortByDist(cs []cand) {
	if len(cs) <= 32 {
		sortCands(cs)
		return
	}
	slicesSortCands(cs)
}
