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

import (
	"slices"
	"strings"

	"github.com/contextd/contextd/index/catalog"
)

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
func (m *msHeap) kept() exactHeap {
	for i := range m.hits {
		m.hits[i].id, _ = m.cat.ID(m.hits[i].ord)
	}
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
	for i := range at {
		if at[i].id == "" {
			at[i].id, _ = m.cat.ID(at[i].ord)
		}
	}
	slices.SortFunc(at, func(a, b exactHit) int { return strings.Compare(b.id, a.id) })
	return append(out, at[:m.depth-len(out)]...)
}
