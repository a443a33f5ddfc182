package vector

// This file holds the bulk insert: AddBatch builds a graph on every core
// and still deterministically, for the rebuild from SQL at start-up and
// the follower's large catch-ups (internal/search). It costs 10-30 % more
// CPU per insert than Add; on two cores with load average 3-5 the graph
// of 10k paragraphs rebuilt in 0.64-0.66 s instead of 0.92-1.04 s, but
// with the cores oversubscribed (load 10-12) it was slower, a worker
// descheduled at a round's barrier stalling the round (docs/vectors.md,
// "Bulk build on every core").
//
// Insertion is one writer under one lock, and most of an insert is its
// candidate search (efConstruction beam per layer), which only reads the
// graph. AddBatch therefore cuts its items into rounds: a round's nodes
// are stored and their levels drawn in item order, then every node's
// candidate searches run in parallel against the graph as it stood before
// the round (frozen: the new nodes have no edges yet, so no walk reaches
// them), together with its distances to the round's earlier members; then
// the nodes are linked one by one in item order, each choosing among its
// frozen-graph candidates merged with the members linked before it, so
// the nodes of one round link to each other too. Each node's candidates
// depend on the frozen graph and its own vector only, and the linking is
// sequential, so the graph is the same for any number of workers or
// goroutine schedule (TestAddBatchDeterministic).

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Round sizes. A round is at most 1/batchDiv of the graph, so a node
// misses at most that share of the graph in its frozen search (and finds
// those of its own round by exact distance anyway), and at most batchMax
// nodes. Each round has two barriers (searches, reverse links), and on a
// shared machine a worker descheduled at one stalls the round, so rounds
// are long: BenchmarkAddBatch, 20k clustered 384-d, two workers, load
// average 9-11 on two cores, 2026-12-04: rounds of 64 built in 6.2-9.4 s
// against 5.0-6.2 s one by one, of 512 in 4.8 s against 8.1 s, of 1,024
// in 2.2 s against 3.1 s. Recall@10 did not move with the size
// (TestAddBatchRecall, float32 KeepPruned, efSearch 10: 0.9457 one by
// one, 0.9460 / 0.9473 / 0.9480 at 256 / 512 / 1,024), and a node
// measures one distance per earlier member of its round. Below batchMin
// nodes a round is not worth the goroutines and items go in one by one,
// as Add does (so a small batch builds the graph Add builds).
const (
	batchMax = 512
	batchDiv = 8
	batchMin = 16
)

// BatchItem is one key of AddBatch: its vector, or (when Code is set) its
// code record in the form AddCode takes.
type BatchItem struct {
	Key  uint64
	Vec  []float32
	Code []byte
	// Bytes and Scale, when Bytes is set, are the stored form of an Int8
	// index (Items hands them out), copied as they are; Vec is not read
	// (the insertion measures their reconstruction).
	Bytes []int8
	Scale float32
}

// AddBatch inserts the items in order, as Add (or AddCode, for an item
// with a code) would one after the other, replacing keys already present;
// a key given twice ends with its last vector. The candidate searches run
// on every core (GOMAXPROCS workers); the graph depends on the items,
// their order and the index's state before the call only (the rounds
// start anew with each call, so two calls build another graph than one).
// Every item is checked before anything is inserted, so an error leaves
// the index as it was.
func (ix *Index) AddBatch(items []BatchItem) error {
	return ix.addBatch(items, runtime.GOMAXPROCS(0))
}

// batchNode is one new node of a round and what its searches found.
type batchNode struct {
	id     uint32
	qv     []float32
	top    int      // the highest layer it links on
	ep     cand     // the descent's last entry point: the fallback candidate
	w      [][]cand // frozen-graph candidates per layer (index l), nearest first
	peers  []cand   // distances to the round's earlier members, in item order
	chosen [][]cand // its neighbours per layer
}

// reverseLink is the edge from -> to on layer l that a new node's choice
// of from asks for (link); seq orders the requests as a one-by-one
// insertion would make them.
type reverseLink struct {
	from, to uint32
	l        int
	d        float32
	seq      int
}

func (ix *Index) addBatch(items []BatchItem, workers int) error {
	qvs := make([][]float32, len(items))
	for i := range items {
		qv, err := ix.batchVector(&items[i])
		if err != nil {
			return fmt.Errorf("item %d (key %d): %w", i, items[i].Key, err)
		}
		qvs[i] = qv
	}
	for len(items) > 0 {
		n := ix.roundSize(len(items))
		ix.addRound(items[:n], qvs[:n], workers)
		items, qvs = items[n:], qvs[n:]
	}
	return nil
}

// batchVector checks an item as Add or AddCode would and returns the
// vector its insertion measures the graph against.
func (ix *Index) batchVector(it *BatchItem) ([]float32, error) {
	if it.Bytes != nil {
		if !ix.o.Int8 || len(it.Bytes) != ix.dim || it.Code != nil {
			return nil, fmt.Errorf("%w: 8-bit form of %d bytes for an index of %d dimensions (8-bit: %v)", ErrInvalid, len(it.Bytes), ix.dim, ix.o.Int8)
		}
		if math.IsNaN(float64(it.Scale)) || math.IsInf(float64(it.Scale), 0) || it.Scale < 0 {
			return nil, fmt.Errorf("%w: 8-bit scale %v", ErrInvalid, it.Scale)
		}
		qv := make([]float32, ix.dim)
		dequantize8(qv, it.Bytes, it.Scale)
		return qv, nil
	}
	if it.Code == nil {
		return it.Vec, ix.checkVector(it.Vec)
	}
	switch {
	case ix.quant == nil || ix.o.KeepFloat:
		return nil, fmt.Errorf("%w: a code needs an index of codes only", ErrInvalid)
	case ix.o.Metric == Cosine:
		return nil, fmt.Errorf("%w: a code needs the L2 or Dot metric", ErrInvalid)
	case len(it.Code) != ix.csize:
		return nil, fmt.Errorf("%w: code of %d bytes, want %d", ErrInvalid, len(it.Code), ix.csize)
	}
	qv := make([]float32, ix.dim)
	if err := ix.quant.Decode(qv, it.Code); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return qv, ix.checkVector(qv) // a corrupt norm decodes to NaN
}

// roundSize is the number of the remaining items the next round takes.
func (ix *Index) roundSize(remaining int) int {
	ix.mu.RLock()
	n := len(ix.keys) - len(ix.free)
	ix.mu.RUnlock()
	b := min(batchMax, n/batchDiv, remaining)
	if b < batchMin {
		return 1
	}
	return b
}

// addRound stores and links one round of items under the write lock.
//
// The linking is split so that it runs on every core as well (with the
// graph's float32 vectors, where comparing stored nodes uses no writer
// scratch): a new node's choice of neighbours depends on its candidates
// and on vectors only, never on neighbour lists, so every node chooses
// right after its searches; the reverse links (each pruning the list of
// the node linked to, most of an insert's CPU with KeepPruned) are then
// grouped by that node and applied in item order within each group, the
// same edits in the same order as one-by-one linking in item order.
func (ix *Index) addRound(items []BatchItem, qvs [][]float32, workers int) {
	ix.lock()
	defer ix.mu.Unlock()
	if len(items) == 1 || ix.entry == noNode {
		for i := range items {
			ix.putLocked(items[i].Key, qvs[i], &items[i])
		}
		return
	}
	nodes := make([]batchNode, len(items))
	top := ix.maxLevel // the graph's top layer when each node links
	for i := range items {
		if old, ok := ix.byKey.get(ix.keys, items[i].Key); ok {
			ix.tombstone(old) // possibly a member of this round, linked all the same
		}
		nd := &nodes[i]
		nd.id, nd.qv = ix.alloc(items[i].Key, qvs[i], &items[i])
		ix.byKey.put(ix.keys, nd.id)
		ix.live++
		level := int(ix.levels[nd.id])
		nd.top = min(level, top)
		top = max(top, level)
	}
	parallel := ix.vecs != nil || ix.o.Int8 // no writer scratch (int8.go)
	ix.forEach(len(nodes), workers, func(s *searchScratch, i int) {
		ix.searchNode(s, nodes, i)
		if parallel {
			ix.chooseNeighbours(nodes, i)
		}
	})
	if !parallel {
		for i := range nodes {
			ix.chooseNeighbours(nodes, i)
		}
		workers = 1
	}
	var reqs []reverseLink
	for i := range nodes {
		for l := nodes[i].top; l >= 0; l-- {
			for _, c := range nodes[i].chosen[l] {
				reqs = append(reqs, reverseLink{from: c.id, to: nodes[i].id, l: l, d: c.d, seq: len(reqs)})
			}
		}
	}
	slices.SortFunc(reqs, func(a, b reverseLink) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.l, b.l), cmp.Compare(a.seq, b.seq))
	})
	var groups []int // start of each (from, l) run of reqs
	for k := range reqs {
		if k == 0 || reqs[k].from != reqs[k-1].from || reqs[k].l != reqs[k-1].l {
			groups = append(groups, k)
		}
	}
	groups = append(groups, len(reqs))
	ix.forEach(len(groups)-1, workers, func(_ *searchScratch, g int) {
		for _, r := range reqs[groups[g]:groups[g+1]] {
			ix.link(r.from, r.to, r.d, r.l)
		}
	})
	for i := range nodes {
		if level := int(ix.levels[nodes[i].id]); level > ix.maxLevel {
			ix.entry, ix.maxLevel = nodes[i].id, level
		}
	}
	ix.maybeRepair()
}

// putLocked is put with the write lock held.
func (ix *Index) putLocked(key uint64, vec []float32, it *BatchItem) {
	if old, ok := ix.byKey.get(ix.keys, key); ok {
		ix.tombstone(old)
	}
	id, qv := ix.alloc(key, vec, it)
	ix.insert(id, qv)
	ix.byKey.put(ix.keys, id)
	ix.live++
	ix.maybeRepair()
}

// forEach calls fn for 0..n-1, workers at a time, each worker with its
// own scratch. What fn writes must not overlap between calls.
func (ix *Index) forEach(n, workers int, fn func(s *searchScratch, i int)) {
	workers = max(1, min(workers, n))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			s := ix.getScratch()
			defer ix.scratch.Put(s)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(s, i)
			}
		})
	}
	wg.Wait()
}

// searchNode is insert's search half for nodes[i]: the descent and the
// efConstruction beam of each of its layers the frozen graph has, plus its
// distances to the round's earlier members.
func (ix *Index) searchNode(s *searchScratch, nodes []batchNode, i int) {
	nd := &nodes[i]
	q := ix.querierFor(s, nd.qv)
	level := int(ix.levels[nd.id])
	ep := cand{q.dist(ix.entry), ix.entry}
	for l := ix.maxLevel; l > level; l-- {
		ep = ix.greedy(q, ep, l)
	}
	nd.ep = ep
	top := min(level, ix.maxLevel)
	nd.w = make([][]cand, top+1)
	eps := []cand{ep}
	alive := func(n uint32) bool { return !ix.dead.has(n) }
	for l := top; l >= 0; l-- {
		w := ix.searchLayer(s, q, eps, ix.o.EfConstruction, l, alive) // a new slice
		nd.w[l] = w
		if len(w) > 0 {
			eps = w
		}
	}
	nd.peers = make([]cand, i)
	for j := range i {
		nd.peers[j] = cand{q.dist(nodes[j].id), nodes[j].id}
	}
}

// chooseNeighbours is the choice half of insert's linking for nodes[i]:
// on each layer the node chooses among its frozen-graph candidates and
// the live members of the round before it that reach the layer (linked
// before it in item order), the nearest efConstruction of them, as insert
// chooses among its beam; it sets its own lists (no walk of the frozen
// graph reaches a new node) and keeps the choice for the reverse links.
func (ix *Index) chooseNeighbours(nodes []batchNode, i int) {
	nd := &nodes[i]
	ef := ix.o.EfConstruction
	// Layer 0 takes at most ef peers, so only the nearest ef live ones
	// are sorted (sorting all of them, up to batchMax, was an eighth of
	// the round's CPU); the upper layers take from the few (1 in M) live
	// peers above layer 0.
	near := make(maxHeap, 0, ef+1)
	var upper []cand
	for _, p := range nd.peers {
		if ix.dead.has(p.id) {
			continue
		}
		if len(near) < ef || p.less(near.top()) {
			near.push(p)
			if len(near) > ef {
				near.pop()
			}
		}
		if ix.levels[p.id] > 0 {
			upper = append(upper, p)
		}
	}
	peers0 := near.sorted()
	slicesSortCands(upper)
	nd.chosen = make([][]cand, nd.top+1)
	cs := make([]cand, 0, ef)
	for l := nd.top; l >= 0; l-- {
		var w []cand
		if l < len(nd.w) {
			w = nd.w[l]
		}
		peers := upper
		if l == 0 {
			peers = peers0
		}
		cs = mergeCands(cs[:0], w, peers, l, ix.levels, ef)
		if len(cs) == 0 && l < len(nd.w) { // every node reached is a tombstone: route from the entry
			cs = append(cs, nd.ep)
		}
		if len(cs) == 0 { // above the frozen graph, whose members here are all replaced
			all := slices.Clone(nd.peers)
			slicesSortCands(all)
			cs = mergeCands(cs, nil, all, l, ix.levels, ef)
		}
		chosen := slices.Clone(ix.selectNeighbours(cs, ix.o.M))
		ns := make([]uint32, len(chosen))
		for k, c := range chosen {
			ns[k] = c.id
		}
		ix.setNeighbours(nd.id, l, ns)
		nd.chosen[l] = chosen
	}
}

// mergeCands appends to dst the nearest ef of w and of the peers that
// reach layer l, nearest first; both inputs are sorted.
func mergeCands(dst, w, peers []cand, l int, levels []uint8, ef int) []cand {
	a, b := 0, 0
	for len(dst) < ef {
		for b < len(peers) && int(levels[peers[b].id]) < l {
			b++
		}
		switch {
		case a < len(w) && (b >= len(peers) || w[a].less(peers[b])):
			dst = append(dst, w[a])
			a++
		case b < len(peers):
			dst = append(dst, peers[b])
			b++
		default:
			return dst
		}
	}
	return dst
}
