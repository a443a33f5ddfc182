package catalog

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// ErrMetaUnserved is List's answer to metadata conditions the catalog
// cannot evaluate exactly (it keeps no metadata, or some entry's metadata
// is not in its columns): the caller asks the database instead.
var ErrMetaUnserved = errors.New("metadata conditions not served by the catalog")

// List returns the ids of one page of the entries q's caller may read
// that pass q's filters and every condition of meta, newest first
// (created_at DESC, id DESC, as SQL orders a search): offset entries are
// skipped, then at most limit returned (limit ≤ 0: all). q.IDs must be
// nil. The readable set comes first (Allowed), so the conditions only
// ever see readable entries.
//
// A condition on a column holding far fewer values than there are
// candidates is applied by scanning the column; the others are tested
// while the page is chosen, only on the candidates that would enter it.
// The page is chosen by walking the candidates from the highest ordinal
// down (ordinals are handed out in arrival order, which is about
// created-at order, so the page fills with the newest first and most
// later candidates are rejected by one comparison of creation times) with
// a heap of offset+limit entries: BenchmarkList, README "Performance".
func (c *Catalog) List(q Query, meta []MetaCond, offset, limit int) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(meta) > 0 && (c.meta == nil || c.unserved > 0) {
		return nil, ErrMetaUnserved
	}
	// Dates are tested during the walk (one comparison per candidate
	// reached) instead of filtering every allowed entry first: a window
	// over the newer half took 14 ms that way at 100,000 entries on the
	// loaded machine, the walk stops after the page.
	w := walk{lo: -1 << 63, hi: 1<<63 - 1}
	if q.Start != nil || q.End != nil {
		w.lo, w.hi = dateBounds(q)
		q.Start, q.End = nil, nil
	}
	if p := q.Before; p != nil {
		// Keyset paging (a scan that goes on from its last entry): the
		// walk starts among the caller's candidates, so entries the
		// caller cannot read cost nothing here, where SQL's walk of the
		// created_at index stepped over every one of them.
		w.before, w.beforeAt, w.beforeID = true, p.CreatedAt.UnixMicro(), p.ID
		w.hi = min(w.hi, w.beforeAt)
	}
	b := c.allowed(q)
	var err error
	if w.lazy, err = c.narrow(b, meta); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetaUnserved, err)
	}
	return c.page(b, w, max(offset, 0), limit), nil
}

// walk is what page tests per candidate: the creation-time bounds and
// the conditions not applied as bitmaps.
type walk struct {
	lo, hi int64
	lazy   []lazyCond
	// before: only ids below beforeID among the entries created at
	// beforeAt (keyset paging, Query.Before; hi is at most beforeAt).
	before   bool
	beforeAt int64
	beforeID string
}

// lazyCond is a condition tested per candidate.
type lazyCond struct {
	p   pred
	col *column
}

// narrow compiles meta (every condition, so a condition the catalog
// refuses is refused whatever the candidates), intersects b with the
// matches of the conditions whose column holds few values, and returns
// the others.
func (c *Catalog) narrow(b *roaring.Bitmap, meta []MetaCond) ([]lazyCond, error) {
	conds := make([]lazyCond, len(meta))
	for i, mc := range meta {
		p, err := compile(mc)
		if err != nil {
			return nil, err
		}
		col := c.meta[pathKey(mc.Path)]
		if col == nil {
			col = &column{sparse: map[uint32]cell{}}
		}
		conds[i] = lazyCond{p, col}
	}
	var lazy []lazyCond
	for _, lc := range conds {
		if lc.p(lc.col, 0, cell{}) || uint64(estimate(lc))*scanColumn >= b.GetCardinality() {
			lazy = append(lazy, lc)
			continue
		}
		b.And(c.scanColumn(lc))
	}
	return lazy, nil
}

// scanColumn: a column is scanned (rather than its condition tested per
// candidate) when it holds fewer than 1/scanColumn as many values as
// there are candidates.
const scanColumn = 8

// estimate bounds how many values of lc's column pass lc: the holders
// of the dictionary strings that pass plus every non-string value, or
// all the column's values when its dictionary is too large to test (a
// status field's three strings are tested at once: a rare status then
// scans the column instead of testing candidates until the page fills).
func estimate(lc lazyCond) int {
	col := lc.col
	if len(col.strs) > 1024 {
		return col.n
	}
	n := col.n
	for id, r := range col.refs {
		if r > 0 && !lc.p(col, 0, cell{kText, uint64(id)}) {
			n -= int(r)
		}
	}
	return n
}

// scanColumn is the ordinals whose value in lc's column passes lc (the
// column's absent values never do).
func (c *Catalog) scanColumn(lc lazyCond) *roaring.Bitmap {
	col := lc.col
	hits := make([]uint32, 0, 64)
	if col.sparse != nil {
		for o, x := range col.sparse {
			if lc.p(col, o, x) {
				hits = append(hits, o)
			}
		}
		slices.Sort(hits)
	} else {
		for o, k := range col.kinds {
			if k != kAbsent && lc.p(col, uint32(o), cell{k, col.vals[o]}) {
				hits = append(hits, uint32(o))
			}
		}
	}
	return roaring.BitmapOf(hits...)
}

// blockOrds is the ordinals per blockMax entry: 8 bytes per 1,024
// entries, and a page whose entries arrived in created-at order stops
// within a block of its oldest entry.
const blockOrds = 1024

// noteCreated raises the creation-time bound of ord's block (bounds are
// never lowered: a removed or replaced entry leaves a bound that is still
// an upper bound).
func (c *Catalog) noteCreated(ord uint32, at int64) {
	blk := int(ord / blockOrds)
	for len(c.blockMax) <= blk {
		c.blockMax = append(c.blockMax, -1<<63)
	}
	c.blockMax[blk] = max(c.blockMax[blk], at)
}

// prefixMax is, per block, the latest creation time of it and every
// lower block.
func (c *Catalog) prefixMax() []int64 {
	out := make([]int64, len(c.blockMax)+1)
	m := int64(-1 << 63)
	for i, v := range c.blockMax {
		m = max(m, v)
		out[i] = m
	}
	out[len(c.blockMax)] = m
	return out
}

// newer reports whether ordinal a comes before b in newest-first order.
func (c *Catalog) newer(a, b uint32) bool {
	if ca, cb := c.created[a], c.created[b]; ca != cb {
		return ca > cb
	}
	return compareIDs(&c.slots[a], &c.slots[b]) > 0
}

// page selects the newest-first entries [offset, offset+limit) of the
// ordinals of b passing every lazy condition.
func (c *Catalog) page(b *roaring.Bitmap, w walk, offset, limit int) []string {
	total := int(b.GetCardinality())
	if offset >= total {
		return []string{}
	}
	k := total
	if limit > 0 {
		k = min(total, offset+limit)
	}
	// h holds the k newest passing entries seen so far, the oldest of
	// them at h[0]. The walk goes down the ordinals of a dense copy of b
	// and stops once no lower block can hold an entry created after
	// h[0] (blockMax).
	h := make([]uint32, 0, k)
	pref := c.prefixMax()
	dense := b.ToDense()
	for i := len(dense) - 1; i >= 0; i-- {
		word := dense[i]
		if word == 0 {
			continue
		}
		if pm := pref[i*64/blockOrds]; pm < w.lo || len(h) == k && pm < c.created[h[0]] {
			break
		}
		for word != 0 {
			bit := 63 - bits.LeadingZeros64(word)
			word &^= 1 << bit
			o := uint32(i*64 + bit)
			at := c.created[o]
			if at < w.lo || at > w.hi || len(h) == k && (at < c.created[h[0]] || !c.newer(o, h[0])) {
				continue
			}
			if w.before && at == w.beforeAt && compareID(&c.slots[o], w.beforeID) >= 0 {
				continue
			}
			if !passes(w.lazy, o) {
				continue
			}
			if len(h) < k {
				h = append(h, o)
				c.siftUp(h, len(h)-1)
				continue
			}
			h[0] = o
			c.siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b uint32) int {
		if c.newer(a, b) {
			return -1
		}
		return 1
	})
	if offset >= len(h) {
		return []string{}
	}
	out := make([]string, 0, len(h)-offset)
	for _, o := range h[offset:] {
		out = append(out, c.slots[o].text())
	}
	return out
}

func passes(lazy []lazyCond, o uint32) bool {
	for _, lc := range lazy {
		if !lc.p(lc.col, o, lc.col.get(o)) {
			return false
		}
	}
	return true
}

// siftUp and siftDown keep h a min-heap in newest-first order (the
// oldest at h[0]).
func (c *Catalog) siftUp(h []uint32, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.newer(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (c *Catalog) siftDown(h []uint32, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && c.newer(h[m], h[l]) {
			m = l
		}
		if r := l + 1; r < len(h) && c.newer(h[m], h[r]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
