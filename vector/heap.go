package vector

import "slices"

// cand is a node with its distance to the query.
type cand struct {
	d  float32
	id uint32
}

// less orders by distance, then by node id so results are deterministic.
func (a cand) less(b cand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	return a.id < b.id
}

// minHeap pops the nearest candidate first (the frontier of a search).
type minHeap []cand

func (h *minHeap) push(c cand) { *h = append(*h, c); siftUp(*h, false) }
func (h *minHeap) pop() cand   { return popHeap((*[]cand)(h), false) }

// maxHeap keeps the best results with the worst on top, so the worst can
// be compared against and evicted in O(log n).
type maxHeap []cand

func (h *maxHeap) push(c cand) { *h = append(*h, c); siftUp(*h, true) }
func (h *maxHeap) pop() cand   { return popHeap((*[]cand)(h), true) }

// The two heaps share one implementation: an element goes before another
// when a.less(b) != far, i.e. nearer first, or farther first when far is
// set. Ids make candidates distinct, so the flipped order is strict too.
// A bool rather than a func keeps the comparison inlined in the search loop.

func siftUp(s []cand, far bool) {
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[i].less(s[p]) == far {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func popHeap(h *[]cand, far bool) cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(s[l]) != far {
			m = r
		}
		if s[m].less(s[i]) == far {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

func (h maxHeap) top() cand { return h[0] }

// sorted empties the heap into ascending order.
func (h *maxHeap) sorted() []cand {
	out := make([]cand, len(*h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}

func slicesSortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
}
