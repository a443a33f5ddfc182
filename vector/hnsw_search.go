package vector

// This file holds the read side of the graph: the greedy and beam walks
// of the layers, their scratch state, and Search with its switch between
// the filtered traversal and the exact scan.

import (
	"cmp"
	"context"
	"slices"

	"github.com/contextd/contextd/quant"
)

// greedy walks layer l towards q from ep (ef = 1), through tombstones too.
func (ix *Index) greedy(q *querier, ep cand, l int) cand {
	for changed := true; changed; {
		changed = false
		for _, n := range ix.neighbours(ep.id, l) {
			if d := q.dist(n); d < ep.d {
				ep, changed = cand{d, n}, true
			}
		}
	}
	return ep
}

// searchLayer is algorithm 2 with a result filter: every node is a route,
// only nodes accepted by ok become results (tombstones, disallowed keys).
// It returns up to ef results, nearest first.
func (ix *Index) searchLayer(s *searchScratch, q *querier, eps []cand, ef, l int, ok func(uint32) bool) []cand {
	s.vis.reset(len(ix.keys))
	s.cands = s.cands[:0]
	s.res = s.res[:0]
	for _, e := range eps {
		if !s.vis.visit(e.id) {
			continue
		}
		s.cands.push(e)
		if ok(e.id) {
			s.res.push(e)
			if len(s.res) > ef {
				s.res.pop()
			}
		}
	}
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if len(s.res) >= ef && c.d > s.res.top().d {
			break
		}
		if l == 0 && len(s.cands) > 0 {
			ix.prefetchLinks(s.cands[0].id)
		}
		for _, n := range s.unvisited(ix, ix.neighbours(c.id, l)) {
			d := q.dist(n)
			if len(s.res) < ef || d < s.res.top().d {
				s.cands.push(cand{d, n})
				if ok(n) {
					s.res.push(cand{d, n})
					if len(s.res) > ef {
						s.res.pop()
					}
				}
			}
		}
	}
	return s.res.sorted()
}

// searchFiltered is searchLayer on layer 0 for an allowed set: the beam
// (bound nodes, allowed or not) decides where to go and when to stop, so
// the walk widens by the inverse of the allowed fraction instead of
// flooding the graph until ef allowed nodes turn up; the allowed ones are
// collected on the side.
func (ix *Index) searchFiltered(s *searchScratch, q *querier, ep cand, ef, bound int, ok func(uint32) bool) []cand {
	s.vis.reset(len(ix.keys))
	s.cands = append(s.cands[:0], ep)
	s.res = append(s.res[:0], ep)
	s.acc = s.acc[:0]
	s.vis.visit(ep.id)
	if ok(ep.id) {
		s.acc.push(ep)
	}
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if len(s.res) >= bound && c.d > s.res.top().d {
			break
		}
		if len(s.cands) > 0 {
			ix.prefetchLinks(s.cands[0].id)
		}
		for _, n := range s.unvisited(ix, ix.neighbours(c.id, 0)) {
			d := q.dist(n)
			if len(s.res) < bound || d < s.res.top().d {
				s.cands.push(cand{d, n})
				s.res.push(cand{d, n})
				if len(s.res) > bound {
					s.res.pop()
				}
				if ok(n) {
					s.acc.push(cand{d, n})
					if len(s.acc) > ef {
						s.acc.pop()
					}
				}
			}
		}
	}
	return s.acc.sorted()
}

type searchScratch struct {
	vis   visitSet
	cands minHeap
	res   maxHeap
	acc   maxHeap
	todo  []uint32 // unvisited's result
	q     []float32
	z     querier
	qq    *quant.Query
}

// unvisited marks the nodes of ns visited and returns those that were
// not, after starting the loads of all their vectors (or codes). Most of
// a walk's neighbours were seen already, so prefetching only the new ones,
// all before the first distance, gives each load the longest lead and
// issues none for nothing; the walk itself is unchanged.
func (s *searchScratch) unvisited(ix *Index, ns []uint32) []uint32 {
	todo := s.todo[:0]
	for _, n := range ns {
		if s.vis.visit(n) {
			todo = append(todo, n)
		}
	}
	for _, n := range todo {
		ix.prefetchNode(n)
	}
	s.todo = todo
	return todo
}

func (ix *Index) getScratch() *searchScratch { return ix.scratch.Get().(*searchScratch) }

// visitSet marks visited nodes with a generation counter, so clearing it
// between searches costs nothing. A byte per node, cleared when the
// generation wraps (every 255 walks: about 3 µs at 100k nodes, 0.01 µs a
// walk), where a uint32 counter never needed clearing but took 4 bytes a
// node in every pooled scratch (0.5 MB each at 100k nodes).
type visitSet struct {
	marks []uint8
	gen   uint8
}

func (v *visitSet) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint8, n+n/4+64)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
}

func (v *visitSet) visit(id uint32) bool {
	if v.marks[id] == v.gen {
		return false
	}
	v.marks[id] = v.gen
	return true
}

// SearchOptions tune one search. The zero value searches every key with
// the index's EfSearch.
type SearchOptions struct {
	// Ef overrides EfSearch for this query (at least k is used).
	Ef int
	// Allow, when set, admits only the keys it returns true for; hidden keys
	// never take a result slot. It runs under the index's read lock, so it
	// must not call back into the index.
	Allow func(key uint64) bool
	// AllowCount is the size of the allowed set when the caller knows it
	// (a bitmap's cardinality); 0 means unknown, and it is estimated.
	AllowCount int
	// Exact forces the exact scan.
	Exact bool
}

// Search returns the k nearest live keys to q, nearest first (ties by
// key). With an allowed set it runs a filtered graph search, or the exact
// scan when the set is small or selective (Options.ExactBelow,
// SwitchCost), and it falls back to the exact scan if the graph search
// finds fewer than k allowed keys.
func (ix *Index) Search(ctx context.Context, q []float32, k int, so SearchOptions) ([]Hit, error) {
	if err := ix.checkQuery(ctx, q, k); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil, nil
	}
	s := ix.queryScratch(q)
	defer ix.scratch.Put(s)
	ef := max(so.Ef, k)
	if so.Ef == 0 {
		ef = max(ix.o.EfSearch, k)
	}
	allowed := ix.live
	if so.Allow != nil && !so.Exact {
		allowed = so.AllowCount
		if allowed <= 0 {
			allowed = ix.estimateAllowed(so.Allow)
		}
		allowed = min(allowed, ix.live)
	}
	z := ix.querierFor(s, s.q)
	kk := k // candidates kept for re-ranking
	if ix.quant != nil && ix.vecs != nil {
		kk = k * ix.o.Overfetch
		ef = max(ef, kk)
	}
	if so.Exact || (so.Allow != nil && ix.selective(allowed, ef)) {
		return ix.exact(z, k, kk, so.Allow), nil
	}
	ep := cand{z.dist(ix.entry), ix.entry}
	for l := ix.maxLevel; l > 0; l-- {
		ep = ix.greedy(z, ep, l)
	}
	var res []cand
	if so.Allow != nil {
		allow := so.Allow
		ok := func(n uint32) bool { return !ix.dead.has(n) && allow(ix.keys[n]) }
		bound := min(ix.live, int(float64(ef)*float64(ix.live)/float64(max(allowed, 1))))
		res = ix.searchFiltered(s, z, ep, ef, max(bound, ef), ok)
	} else {
		res = ix.searchLayer(s, z, []cand{ep}, ef, 0, func(n uint32) bool { return !ix.dead.has(n) })
	}
	if len(res) < k && len(res) < ix.live {
		// The graph search ran dry before k results (a tiny or
		// disconnected allowed region): only the scan can be sure.
		return ix.exact(z, k, kk, so.Allow), nil
	}
	res = ix.rerank(s.q, res[:min(kk, len(res))])
	return ix.hits(res[:min(k, len(res))]), nil
}

// selective decides between filtered traversal and exact scan, by cost.
// The scan of an allowed fraction f computes f·live distances; the
// filtered traversal must widen its beam to about ef/f nodes to collect ef
// allowed ones, each costing up to 2M distances. The scan is cheaper when
// f·live ≤ (ef/f)·2M, i.e. allowed² ≤ ef·2M·live; SwitchCost scales the
// right side to the measured crossover. BenchmarkFilteredSwitch on
// clustered 384-d vectors, ef 96, two shared cores, median µs
// (graph / scan) at 1, 2, 5, 10, 20, 50 % allowed:
//
//	100k: 22068/430  9993/457  4524/1129  837/2459  549/4545  435/10556
//	 10k:  5471/26   4007/29   7290/45   1619/66    862/86   415/237
//
// At 100k the crossover is near 7 %; at 10k, where the vectors fit in
// cache, the scan still wins at 50 %. The scan is memory-bound at large n
// (a full 100k scan reads 150 MB), which the count model misses, so the
// constant is fitted at 100k: 0.2 puts the switch at 7.8k allowed of 100k
// (7.8 %), 2.5k of 10k (25 %: conservative, the graph is used a little
// early there) and 25k of 1M (2.5 %). Both paths gave recall@10 ≥ 0.997.
func (ix *Index) selective(allowed, ef int) bool {
	return allowed <= ix.o.ExactBelow ||
		float64(allowed)*float64(allowed) <= ix.o.SwitchCost*float64(ef)*float64(ix.m0)*float64(ix.live)
}

// estimateAllowed asks the predicate about up to 1024 slots spread by a
// multiplicative hash (a fixed stride would alias with regular key
// patterns) and scales the allowed share to the live count.
func (ix *Index) estimateAllowed(allow func(uint64) bool) int {
	total := len(ix.keys)
	samples := min(total, 1024)
	seen, hit := 0, 0
	for j := 0; j < samples; j++ {
		i := uint32((uint64(j) * 2654435761) % uint64(total))
		if samples == total {
			i = uint32(j)
		}
		if ix.dead.has(i) {
			continue
		}
		seen++
		if allow(ix.keys[i]) {
			hit++
		}
	}
	if seen == 0 {
		return 0
	}
	return int(float64(hit) / float64(seen) * float64(ix.live))
}

// hits maps nodes to keys, ordered by distance, ties by key.
func (ix *Index) hits(cs []cand) []Hit {
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{Key: ix.keys[c.id], Distance: ix.o.Metric.report(c.d)}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out
}
