package index

// Scoring units: what the BM25 stage weighs as one term.
//
// A match, phrase or boolean query's units are its positive index terms.
// A prefix (`auth*`) is one unit over its expansions, the index terms
// starting with it, as FTS5's bm25() scores a prefix phrase (the
// reference's prefix mode, R-351/R-352): its document frequency counts the
// entries holding any expansion, and its frequency in an entry sums the
// expansions' frequencies. Scored this way over the caller's readable set
// (stats.go), a prefix query's score no longer depends on entries the
// caller cannot read, as Bleve's own prefix score did (its idf per
// expansion and its average length are collection-wide).
// An expansion held only by unreadable entries adds nothing: its readable
// postings are empty.

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/contextd/contextd/index/bm25"
)

// scoreUnit is one weighed term: an index term, or a prefix's expansions
// (sorted); qtf counts its occurrences in the query.
type scoreUnit struct {
	terms []string
	qtf   int
}

// scoreUnits returns the units of a query's positive terms and prefixes
// (each prefix a list of alternative prefixes, expanded over r's term
// dictionary), in first-occurrence order; a repeated term or prefix
// counts once per occurrence (qtf), as bm25() weighs a repeated phrase.
func scoreUnits(r bindex.IndexReader, terms []string, prefixes [][]string) ([]scoreUnit, error) {
	order, qtf := queryTerms(terms)
	out := make([]scoreUnit, 0, len(order)+len(prefixes))
	for _, t := range order {
		out = append(out, scoreUnit{terms: []string{t}, qtf: qtf[t]})
	}
	seen := map[string]int{}
	for _, alts := range prefixes {
		key := strings.Join(alts, "\x00")
		if i, ok := seen[key]; ok {
			out[i].qtf++
			continue
		}
		exp, err := expand(r, alts)
		if err != nil {
			return nil, err
		}
		seen[key] = len(out)
		out = append(out, scoreUnit{terms: exp, qtf: 1})
	}
	return out, nil
}

// expand returns the index terms starting with any of prefixes, sorted
// and distinct.
func expand(r bindex.IndexReader, prefixes []string) ([]string, error) {
	var out []string
	for _, p := range prefixes {
		d, err := r.FieldDictPrefix(fieldText, []byte(p))
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		for {
			e, err := d.Next()
			if err != nil {
				_ = d.Close()
				return nil, fmt.Errorf("index: %w", err)
			}
			if e == nil {
				break
			}
			out = append(out, e.Term)
		}
		_ = d.Close()
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// unitFreq is the number of collection entries holding any of u's terms.
func (s *collStats) unitFreq(ctx context.Context, u scoreUnit) (int, error) {
	switch len(u.terms) {
	case 0:
		return 0, nil
	case 1:
		return s.docFreq(ctx, u.terms[0])
	}
	key := "\x00" + strings.Join(u.terms, "\x00")
	if n, ok := s.df[key]; ok {
		return n, nil
	}
	if err := s.loadSegs(); err != nil {
		return 0, err
	}
	n := 0
	for k := range s.segs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		union := roaring.New()
		for _, t := range u.terms {
			p, err := s.postings(&s.segs[k], t)
			if err != nil {
				return 0, err
			}
			if err := p.addTo(union); err != nil {
				return 0, err
			}
		}
		switch {
		case s.readable == nil:
			n += int(union.GetCardinality())
		case s.segs[k].local != nil:
			n += int(union.AndCardinality(s.segs[k].local))
		default:
			it := union.Iterator()
			for it.HasNext() {
				if s.readableOrd(s.segs[k].ords, uint64(it.Next())) {
					n++
				}
			}
		}
	}
	s.df[key] = n
	return n, nil
}

// addTo adds the postings' documents to bm.
func (p segPostings) addTo(bm *roaring.Bitmap) error {
	switch {
	case p.count == 0:
	case p.hasOne:
		bm.Add(uint32(p.one))
	case p.bm != nil:
		bm.Or(p.bm)
	default:
		for {
			d, err := p.it.Next()
			if err != nil {
				return fmt.Errorf("index: %w", err)
			}
			if d == nil {
				break
			}
			bm.Add(uint32(d.Number()))
		}
	}
	return nil
}

// unitReader returns a cursor over u's postings and its idf times qtf; nil
// when no collection entry holds u.
func (s *collStats) unitReader(ctx context.Context, u scoreUnit) (*unitCursor, error) {
	df, err := s.unitFreq(ctx, u)
	if err != nil || df == 0 {
		return nil, err
	}
	return &unitCursor{st: s, terms: u.terms, seg: nil,
		idf: float64(u.qtf) * bm25.IDF(float64(df), float64(s.docs))}, nil
}

// unitCursor walks one unit's postings along ascending documents, segment
// by segment: in each segment one postings iterator per term (with
// frequencies and norms, from the search's cached term dictionary) in a
// min-heap by position, so a document costs only the iterators behind it
// (a prefix of thousands of expansions does not advance every one per
// match).
type unitCursor struct {
	st    *collStats
	terms []string
	idf   float64
	seg   *scorch.SegmentSnapshot // the segment live walks
	live  subHeap
}

// subCursor is one term's position in the segment: started once read.
type subCursor struct {
	it      segment.PostingsIterator
	leap    leaper
	started bool
	cur     uint64
	freq    uint64
	norm    float64
}

type subHeap []*subCursor

func (h subHeap) Len() int { return len(h) }
func (h subHeap) Less(i, j int) bool {
	if h[i].started != h[j].started {
		return !h[i].started
	}
	return h[i].cur < h[j].cur
}
func (h subHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *subHeap) Push(x any)   { *h = append(*h, x.(*subCursor)) }
func (h *subHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// at returns the unit's summed frequency in local document d of segment
// ss and the document's norm; documents are visited in ascending order
// (segment by segment, as the snapshot numbers them).
func (c *unitCursor) at(ss *scorch.SegmentSnapshot, d uint64) (uint64, float64, error) {
	if ss != c.seg {
		c.seg, c.live = ss, c.live[:0]
		dict, err := c.st.dict(ss)
		if err != nil {
			return 0, 0, err
		}
		del := deletions(ss)
		for _, t := range c.terms {
			pl, err := dict.PostingsList([]byte(t), del, nil)
			if err != nil {
				return 0, 0, fmt.Errorf("index: %w", err)
			}
			if pl != nil {
				it := pl.Iterator(true, true, false, nil)
				c.live = append(c.live, &subCursor{it: it, leap: newLeaper(ss.Segment(), pl, it, del)})
			}
		}
	}
	for len(c.live) > 0 && (!c.live[0].started || c.live[0].cur < d) {
		s := c.live[0]
		p, err := s.leap.advance(s.it, d)
		if err != nil {
			return 0, 0, fmt.Errorf("index: %w", err)
		}
		if p == nil {
			heap.Pop(&c.live)
			continue
		}
		s.started, s.cur, s.freq, s.norm = true, p.Number(), p.Frequency(), p.Norm()
		heap.Fix(&c.live, 0)
	}
	var freq uint64
	var norm float64
	// The cursors at d are the root and its descendants at d.
	var visit func(i int)
	visit = func(i int) {
		if i >= len(c.live) || c.live[i].cur != d {
			return
		}
		freq += c.live[i].freq
		norm = c.live[i].norm
		visit(2*i + 1)
		visit(2*i + 2)
	}
	visit(0)
	return freq, norm, nil
}
