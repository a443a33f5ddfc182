package vector

// This file holds the write side of the graph: adding and deleting keys,
// inserting a node (algorithm 1 of the paper) and the neighbour-selection
// heuristic that keeps lists within capacity.

import (
	"fmt"
	"math"
	"slices"
)

// Add inserts vec under key, replacing the key's previous vector if any.
// The vector is copied.
func (ix *Index) Add(key uint64, vec []float32) error {
	if err := ix.checkVector(vec); err != nil {
		return err
	}
	ix.put(key, vec, nil)
	return nil
}

// put stores key (vec, or the stored form it carries when not nil) and
// links it, replacing the key's previous node.
func (ix *Index) put(key uint64, vec []float32, it *BatchItem) {
	ix.lock()
	defer ix.mu.Unlock()
	ix.putLocked(key, vec, it)
}

// AddCode inserts key from its code record (the form of the index's
// quantizer, quant.Quantizer.Encode), replacing it if present: what a
// store that keeps only codes hands back, so nothing is encoded twice.
// The insertion measures the graph against the code's reconstruction.
// It needs a quantizer without KeepFloat (there is no float32 vector to
// keep) and the L2 or Dot metric (a Cosine index codes normalised
// vectors, which a stored code of the raw vector is not).
func (ix *Index) AddCode(key uint64, code []byte) error {
	switch {
	case ix.quant == nil || ix.o.KeepFloat:
		return fmt.Errorf("%w: AddCode needs an index of codes only", ErrInvalid)
	case ix.o.Metric == Cosine:
		return fmt.Errorf("%w: AddCode needs the L2 or Dot metric", ErrInvalid)
	case len(code) != ix.csize:
		return fmt.Errorf("%w: code of %d bytes, want %d", ErrInvalid, len(code), ix.csize)
	}
	qv := make([]float32, ix.dim)
	if err := ix.quant.Decode(qv, code); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := ix.checkVector(qv); err != nil { // a corrupt norm decodes to NaN
		return err
	}
	ix.put(key, qv, &BatchItem{Code: code})
	return nil
}

// Tune applies the settings of o that shape later work without touching
// the storage: EfConstruction, EfSearch and KeepPruned (zero values mean
// the defaults). A snapshot keeps the efConstruction and efSearch its
// graph was built with, and not KeepPruned; an owner configured otherwise
// applies its own after Read, so a changed setting takes effect without a
// rebuild (nodes already linked keep their lists).
func (ix *Index) Tune(o Options) {
	r := Options{EfConstruction: o.EfConstruction, EfSearch: o.EfSearch}.resolved()
	ix.lock()
	ix.o.EfConstruction, ix.o.EfSearch, ix.o.KeepPruned = r.EfConstruction, r.EfSearch, o.KeepPruned
	ix.mu.Unlock()
}

// SetEfConstruction sets the candidate list of the inserts that follow
// (ef < 1: DefaultEfConstruction). A snapshot keeps the value its graph
// was built with; an owner configured with another applies its own after
// loading, so a changed setting takes effect without a rebuild (nodes
// already linked keep their lists).
func (ix *Index) SetEfConstruction(ef int) {
	if ef < 1 {
		ef = DefaultEfConstruction
	}
	ix.lock()
	ix.o.EfConstruction = ef
	ix.mu.Unlock()
}

// Delete removes key; it reports whether the key was present.
func (ix *Index) Delete(key uint64) bool {
	ix.lock()
	defer ix.mu.Unlock()
	id, ok := ix.byKey.get(ix.keys, key)
	if !ok {
		return false
	}
	ix.tombstone(id)
	ix.maybeRepair()
	return true
}

func (ix *Index) tombstone(id uint32) {
	ix.byKey.del(ix.keys, ix.keys[id])
	ix.dead.set(id)
	ix.live--
	ix.tombs++
}

func (ix *Index) maybeRepair() {
	if ix.tombs > 0 && float64(ix.tombs) > ix.o.RepairFraction*float64(len(ix.keys)) {
		ix.repair()
	}
}

// alloc stores the vector (or its code) in a free slot or a new one and
// draws its level; it returns the slot and the vector in index space
// (normalised for Cosine), which insert measures the graph against.
//
// it, when not nil, may carry vec's stored form (a code record, or the
// bytes and scale of Int8), copied instead of encoding vec again.
func (ix *Index) alloc(key uint64, vec []float32, it *BatchItem) (uint32, []float32) {
	var code []byte
	var b8 []int8
	var s8 float32
	if it != nil {
		code, b8, s8 = it.Code, it.Bytes, it.Scale
	}
	qv := vec
	if ix.o.Metric == Cosine {
		qv = append([]float32(nil), vec...)
		normalize(qv)
	}
	level := int(math.Floor(-math.Log(1-ix.rng.Float64()) * ix.mL))
	level = min(level, maxLevelCap)
	var id uint32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
		if ix.vecs != nil {
			copy(ix.vec(id), qv)
		}
		switch {
		case b8 != nil:
			copy(ix.i8(id), b8)
			ix.scale8[id] = s8
		case ix.o.Int8:
			ix.scale8[id] = quantize8(ix.i8(id), qv)
		}
		switch {
		case code != nil:
			copy(ix.code(id), code)
		case ix.quant != nil:
			_, _ = ix.quant.Encode(ix.code(id)[:0], qv) // checked by Add
		}
		ix.keys[id] = key
		ix.dead.clear(id)
		ix.freed.clear(id)
		b := int(id) * (ix.m0 + 1)
		clear(ix.links0[b : b+ix.m0+1])
	} else {
		id = uint32(len(ix.keys))
		switch {
		case b8 != nil:
			ix.bytes8 = append(room(ix.bytes8, ix.dim), b8...)
			ix.scale8 = append(ix.scale8, s8)
		case ix.o.Int8:
			ix.bytes8 = append(room(ix.bytes8, ix.dim), make([]int8, ix.dim)...)
			ix.scale8 = append(ix.scale8, quantize8(ix.bytes8[len(ix.bytes8)-ix.dim:], qv))
		case ix.quant == nil || ix.o.KeepFloat:
			ix.vecs = append(room(ix.vecs, len(qv)), qv...)
		}
		switch {
		case code != nil:
			ix.codes = append(room(ix.codes, len(code)), code...)
		case ix.quant != nil:
			ix.codes, _ = ix.quant.Encode(room(ix.codes, ix.csize), qv)
		}
		ix.keys = append(ix.keys, key)
		ix.levels = append(ix.levels, 0)
		ix.links0 = append(room(ix.links0, ix.m0+1), make([]uint32, ix.m0+1)...)
		ix.dead.grow(len(ix.keys))
		ix.freed.grow(len(ix.keys))
	}
	ix.levels[id] = uint8(level)
	delete(ix.upper, id)
	if level > 0 {
		ix.upper[id] = make([]uint32, level*(ix.o.M+1))
	}
	return id, qv
}

// insert links node id into the graph (algorithm 1 of the paper).
func (ix *Index) insert(id uint32, qv []float32) {
	level := int(ix.levels[id])
	if ix.entry == noNode {
		ix.entry, ix.maxLevel = id, level
		return
	}
	s := ix.getScratch()
	defer ix.scratch.Put(s)
	q := ix.querierFor(s, qv)
	ep := cand{q.dist(ix.entry), ix.entry}
	for l := ix.maxLevel; l > level; l-- {
		ep = ix.greedy(q, ep, l)
	}
	eps := []cand{ep}
	alive := func(n uint32) bool { return !ix.dead.has(n) }
	for l := min(level, ix.maxLevel); l >= 0; l-- {
		w := ix.searchLayer(s, q, eps, ix.o.EfConstruction, l, alive)
		if len(w) == 0 { // every node reached is a tombstone: route from the entry
			w = []cand{ep}
		}
		chosen := ix.selectNeighbours(w, ix.o.M)
		ns := make([]uint32, len(chosen))
		for i, c := range chosen {
			ns[i] = c.id
		}
		ix.setNeighbours(id, l, ns)
		for _, c := range chosen {
			ix.link(c.id, id, c.d, l)
		}
		eps = w
	}
	if level > ix.maxLevel {
		ix.entry, ix.maxLevel = id, level
	}
}

// link adds the edge from -> to (at distance d) on layer l, shrinking
// from's list with the heuristic when it is full.
func (ix *Index) link(from, to uint32, d float32, l int) {
	ns := ix.neighbours(from, l)
	if len(ns) < ix.capacity(l) {
		ix.setNeighbours(from, l, append(ns[:len(ns):len(ns)], to))
		return
	}
	cs := make([]cand, 0, len(ns)+1)
	if qq := ix.pruneQuery(from); qq != nil {
		// Code mode: from's reconstruction against its neighbours' codes
		// through the tables, instead of decoding every neighbour (up to
		// 2·M per link, M links per insert); see pruneQuery.
		for _, n := range ns {
			cs = append(cs, cand{ix.codeDist(qq, n), n})
		}
	} else if ix.o.Int8 {
		// Runs on every core in a batch (addRound): no writer scratch.
		for _, n := range ns {
			cs = append(cs, cand{ix.i8Pair(from, n), n})
		}
	} else {
		fv := ix.nodeInto(from, 0)
		for _, n := range ns {
			cs = append(cs, cand{ix.o.Metric.dist(fv, ix.nodeInto(n, 1)), n})
		}
	}
	cs = append(cs, cand{d, to})
	sortCands(cs)
	chosen := ix.selectNeighbours(cs, ix.capacity(l))
	out := make([]uint32, len(chosen))
	for i, c := range chosen {
		out[i] = c.id
	}
	ix.setNeighbours(from, l, out)
}

// selectNeighbours is the paper's heuristic (algorithm 4, without
// extending candidates, as hnswlib does): walk the candidates nearest
// first and keep one only if it is nearer to the base than to every
// neighbour kept so far; with Options.KeepPruned the list is then filled
// up to m with the nearest of the candidates it passed over. cs must be
// sorted ascending.
//
// Copies of one vector (a paragraph stored many times) take at most m/2
// slots beyond the first copy. The heuristic cannot tell copies of the
// base apart (each is as near to the base as to the others, and the test
// is strict), and the fill adds copies first (they are nearest), so
// without the cap a node with 2·M or more copies kept only copies on
// layer 0, and the copies formed an island no walk could leave: `contextd
// bench --size 10000` (Go doc paragraphs, which repeat) had 33 identical
// vectors each linked only to the other 32, and 3 of 20 semantic queries
// whose descent ended there found 33 of k = 100 or 200 and fell back to
// the exact scan, which was 0.48 of the vector leg's 0.79 s CPU at 100k.
func (ix *Index) selectNeighbours(cs []cand, m int) []cand {
	if len(cs) <= m {
		return cs
	}
	out := make([]cand, 0, m)
	copies, maxCopies := 0, m/2
	// isCopy[j]: cs[j] is identical to a neighbour kept before it. The
	// candidates are efConstruction's or a full list and one more, so
	// the stack holds them (no allocation per insert and link).
	var stack [128]bool
	isCopy := stack[:min(len(cs), len(stack))]
	if len(cs) > len(stack) {
		isCopy = make([]bool, len(cs))
	}
	for j, c := range cs {
		if len(out) >= m {
			break
		}
		// Kept neighbour i is in slot i (code mode: decoded once each;
		// Int8 compares the stored bytes, without the writer's scratch,
		// as this runs on every core in a batch).
		var cv []float32
		if !ix.o.Int8 {
			cv = ix.nodeInto(c.id, len(out))
		}
		good := true
		for i := range out {
			var d float32
			var rv []float32
			if ix.o.Int8 {
				d = ix.i8Pair(c.id, out[i].id)
			} else {
				rv = ix.slotVec(out[i].id, i)
				d = ix.o.Metric.dist(cv, rv)
			}
			// Only a copy's distance can be at most its distance to the
			// base without the two being near (d is then the copy's self
			// distance); other vectors differ in their first element.
			if !isCopy[j] && d <= c.d {
				if ix.o.Int8 {
					isCopy[j] = ix.i8Same(c.id, out[i].id)
				} else {
					isCopy[j] = slices.Equal(cv, rv)
				}
			}
			if d < c.d {
				good = false
				break
			}
		}
		if good && isCopy[j] {
			good = copies < maxCopies
			copies += b2i(good)
		}
		if good {
			out = append(out, c)
		}
	}
	if ix.o.KeepPruned && len(out) < m {
		for j, c := range cs {
			if len(out) >= m {
				break
			}
			if containsCand(out, c.id) || isCopy[j] && copies >= maxCopies {
				continue
			}
			copies += b2i(isCopy[j])
			out = append(out, c)
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func containsCand(cs []cand, id uint32) bool {
	for _, c := range cs {
		if c.id == id {
			return true
		}
	}
	return false
}

func sortCands(cs []cand) {
	// insertion sort: lists are at most 2·M+1 long
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].less(cs[j-1]); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
