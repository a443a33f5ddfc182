package index

// The MaxScore selection's top depth, kept by score alone.
//
// The ranking breaks score ties by id, and at 100k entries of the Go
// tree's comments ties are everywhere: a licence header or a generated
// file's banner is stored thousands of times, and every copy scores the
// same. Ordered by (score, id) as the exhaustive walk's heap is, every
// copy that reached the heap's worst score cost a catalog lookup (under
// its read lock) and string comparisons down the heap: in a CPU profile
// of 2,000 hybrid queries at 100k (the bench's six-word queries) the heap
// took 0.78 s of the selection's 3.41 s even with ids read only for ties.
// So the heap orders by score only, and the candidates tied with its
// worst score wait beside it, unnamed, until the selection ends; the ids
// then decide among them alone (the selection took 3.09 s). The kept set
// is the one (score DESC, id DESC) selects: whatever leaves the heap or
// never enters it scores below the final worst score, or ties with it
// and waits.

import "github.com/contextd/contextd/index/catalog"

// msHeap is the best depth candidates seen: hits is a min-heap by score,
// and once it is full ties holds the other candidates scoring exactly as
// its root (the root's score only grows; ties are dropped when it does).
type msHeap struct {
	hits  []exactHit
	ties  []exactHit
	depth int
	cat   *catalog.Catalog
}

// full reports that the heap holds depth candidates.
func (m *msHeap) full() bool { return len(m.hits) >= m.depth }

// worst is the root's score, the score a candidate must reach.
func (m *msHeap) worst() float64 { return m.hits[0].score }

// add keeps h if it can still be among the best depth: h scores at least
// worst() when the heap is full.
func (m *msHeap) add(h exactHit) {
	if !m.full() {
		m.hits = append(m.hits, h)
		for i := len(m.hits) - 1; i > 0; {
			p := (i - 1) / 2
			if m.hits[i].score >= m.hits[p].score {
				break
			}
			m.hits[i], m.hits[p] = m.hits[p], m.hits[i]
			i = p
		}
		return
	}
	if h.score == m.worst() {
		m.ties = append(m.ties, h)
		return
	}
	out := m.hits[0]
	m.hits[0] = h
	n := len(m.hits)
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && m.hits[r].score < m.hits[c].score {
			c = r
		}
		if m.hits[c].score >= m.hits[i].score {
			break
		}
		m.hits[i], m.hits[c] = m.hits[c], m.hits[i]
		i = c
	}
	if m.worst() > out.score {
		m.ties = m.ties[:0] // every tie scored out's score
		return
	}
	m.ties = append(m.ties, out)
}

// kept returns the best depth candidates, named: those above the worst
// score, and of those at it (in the heap or waiting) the largest ids.
// The ties are named under one catalog lock and only the ones wanted are
// selected (a min-heap by id): thousands of copies of a licence header
// tie at 100k entries, and sorting them all by id cost 0.20 s of CPU in
// 3,000 hybrid calls, naming them one lock each 0.12 s.
func (m *msHeap) kept() exactHeap {
	ord := func(h *exactHit) uint32 { return h.ord }
	set := func(h *exactHit, id string) { h.id = id }
	catalog.Name(m.cat, m.hits, ord, set)
	if len(m.ties) == 0 {
		return m.hits
	}
	w := m.worst()
	out := make(exactHeap, 0, m.depth)
	at := m.ties
	for _, h := range m.hits {
		if h.score > w {
			out = append(out, h)
		} else {
			at = append(at, h)
		}
	}
	catalog.Name(m.cat, at[:len(m.ties)], ord, set)
	return append(out, largestIDs(at, m.depth-len(out))...)
}

// largestIDs returns the k hits of at with the largest ids, in no
// particular order (the result is sorted afterwards); at is reordered.
func largestIDs(at []exactHit, k int) []exactHit {
	if k >= len(at) {
		return at
	}
	if k <= 0 {
		return nil
	}
	top := at[:k] // a min-heap by id of the largest k seen
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= k {
				return
			}
			if r := c + 1; r < k && top[r].id < top[c].id {
				c = r
			}
			if top[c].id >= top[i].id {
				return
			}
			top[i], top[c] = top[c], top[i]
			i = c
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(at); i++ {
		if at[i].id > top[0].id {
			top[0], at[i] = at[i], top[0]
			down(0)
		}
	}
	return top
}
