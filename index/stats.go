package index

// Collection statistics over the caller's readable set.
//
// BM25 weighs a term by its document frequency df among N documents and
// normalizes by the average text length avgdl. Counted over every indexed
// entry, these move when another principal stores private entries, so a
// score told the caller whether words it cannot read exist. An
// in-process search therefore counts them over the entries its caller may
// read: the readable set of the catalog (public, owned, granted to the
// principal or one of its groups), before the structural filters, so an
// entry's score does not depend on the thread, tag or date filters either.
// The BM25 stage (bm25.go), the term-pruning bounds (prune.go) and the
// built-in reranker's document frequencies (docfreq.go) all read one
// collStats; a caller's scores are then a function of what it can read
// alone, bit for bit.
//
//   - N is the readable set's cardinality;
//   - avgdl is the readable entries' summed text length (kept per ordinal
//     by the catalog) over N;
//   - df(t) intersects, segment by segment, t's postings (minus the
//     segment's deletions) with the readable set: each posting's local
//     document number is mapped to its catalog ordinal by the prefilter's
//     per-segment array and tested in a dense bitset of the readable
//     ordinals. The cost is linear in t's postings, as the search that
//     visits them; a caller who reads every entry gets the term
//     dictionary's counts.
//
// SEARCH_BACKEND=native keeps the database's collection-wide statistics
// (the reference's behaviour, R-307; README, security notes).

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/numeric"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// collStats are the BM25 statistics of one search's collection.
type collStats struct {
	docs   uint64
	tokens uint64
	// readable is the set the counts are restricted to, nil for every
	// indexed entry; dense is it as a bitset over ordinals.
	readable *roaring.Bitmap
	dense    []uint64
	r        bindex.IndexReader
	segs     []statSeg
	df       map[string]int
	// total is the segments' documents; scanned the postings counted so
	// far; local whether the segments' readable bitmaps are built (docFreq).
	total, scanned uint64
	local          bool
	segsLoaded     bool
	ix             *Index
	dicts          map[*scorch.SegmentSnapshot]segment.TermDictionary
}

// statSeg is one segment of the reader with its ordinal array.
type statSeg struct {
	ss    *scorch.SegmentSnapshot
	ords  []uint32
	local *roaring.Bitmap // the readable local documents, once built
}

func (s *collStats) avgdl() float64 {
	if s.docs == 0 {
		return 1
	}
	return float64(s.tokens) / float64(s.docs)
}

// statsFor returns the statistics over readable (nil: every entry) read
// from r, which the caller closes after the last use. The caller holds
// ix.view, so the catalog and r describe one state.
func (ix *Index) statsFor(r bindex.IndexReader, readable *roaring.Bitmap) (*collStats, error) {
	if err := ix.fillLengths(r); err != nil {
		return nil, err
	}
	st := &collStats{ix: ix, r: r, df: map[string]int{}}
	if readable != nil && readable.GetCardinality() == uint64(ix.cat.Len()) {
		readable = nil // every entry: the term dictionary's counts are the same
	}
	if readable == nil {
		st.docs, st.tokens = uint64(ix.cat.Len()), ix.cat.Tokens(nil)
		return st, nil
	}
	st.readable = readable
	st.docs, st.tokens = readable.GetCardinality(), ix.cat.Tokens(readable)
	st.dense = readable.ToDense()
	if err := st.loadSegs(); err != nil {
		return nil, err
	}
	return st, nil
}

// loadSegs lists the reader's segments with their ordinal arrays, once.
func (s *collStats) loadSegs() error {
	if s.segsLoaded {
		return nil
	}
	snap, ok := s.r.(*scorch.IndexSnapshot)
	if !ok {
		return fmt.Errorf("index: statistics need a scorch snapshot, got %T", s.r)
	}
	segs := snap.Segments()
	for _, ss := range segs {
		if ss.Count() == 0 {
			continue
		}
		e, err := s.ix.segmentOrds(ss, segs)
		if err != nil {
			return err
		}
		s.segs = append(s.segs, statSeg{ss: ss, ords: e.ords})
		s.total += uint64(len(e.ords))
	}
	s.segsLoaded = true
	return nil
}

// docFreq is the number of collection entries whose text holds term.
func (s *collStats) docFreq(ctx context.Context, term string) (int, error) {
	if n, ok := s.df[term]; ok {
		return n, nil
	}
	var n int
	if s.readable == nil {
		// Each segment's list counted minus its deletions (zap's Count
		// intersects rather than copies): Bleve's TermFieldReader would
		// open an iterator a segment, each a copy of the list minus the
		// deletions, empty or not (see deletions).
		snap, ok := s.r.(*scorch.IndexSnapshot)
		if !ok {
			return 0, fmt.Errorf("index: statistics need a scorch snapshot, got %T", s.r)
		}
		for _, ss := range snap.Segments() {
			dict, err := s.dict(ss)
			if err != nil {
				return 0, err
			}
			pl, err := dict.PostingsList([]byte(term), deletions(ss), nil)
			if err != nil {
				return 0, fmt.Errorf("index: %w", err)
			}
			if pl != nil {
				n += int(pl.Count())
			}
		}
		s.df[term] = n
		return n, nil
	}
	lists := make([]segPostings, len(s.segs))
	var postings uint64
	for k := range s.segs {
		p, err := s.postings(&s.segs[k], term)
		if err != nil {
			return 0, err
		}
		lists[k] = p
		postings += p.count
	}
	// Scanning postings costs about as much per posting as building each
	// segment's bitmap of readable documents costs per document; once the
	// query's terms have more postings than the index has documents, the
	// bitmaps are built and each further count is one intersection.
	if !s.local && s.scanned+postings > s.total {
		s.buildLocal()
	}
	s.scanned += postings
	for k := range s.segs {
		c, err := s.count(&s.segs[k], lists[k])
		if err != nil {
			return 0, err
		}
		n += c
	}
	s.df[term] = n
	return n, nil
}

// readableOrd reports whether the local document of a segment maps to a
// readable ordinal.
func (s *collStats) readableOrd(ords []uint32, local uint64) bool {
	if local >= uint64(len(ords)) {
		return false
	}
	o := ords[local]
	return o != noOrd && int(o>>6) < len(s.dense) && s.dense[o>>6]&(1<<(o&63)) != 0
}

// buildLocal builds each segment's bitmap of the local documents whose
// ordinal is readable (deleted documents are left to the postings, which
// exclude them).
func (s *collStats) buildLocal() {
	buf := make([]uint32, 0, 1024)
	for k := range s.segs {
		buf = buf[:0]
		for i := range s.segs[k].ords {
			if s.readableOrd(s.segs[k].ords, uint64(i)) {
				buf = append(buf, uint32(i))
			}
		}
		s.segs[k].local = roaring.BitmapOf(buf...)
	}
	s.local = true
}

// segPostings are a term's postings in one segment, deletions removed:
// zap's bitmap or single document when it exposes them, else the
// iterator.
type segPostings struct {
	count  uint64
	bm     *roaring.Bitmap
	one    uint64
	hasOne bool
	it     interface {
		Next() (segment.Posting, error)
	}
}

// deletions returns the segment's deleted documents, nil when there are
// none. Scorch gives a segment a merge introduced an empty bitmap rather
// than nil (a reopened index has nil), and zap treats any bitmap as
// deletions: each list opened is copied minus it (roaring.AndNot), and
// its iterator's Advance walks the whole list one posting at a time to
// the target (nextDocNumAtOrAfter) where a clean list seeks. In a
// process that had just loaded 1M entries (its large segment from a
// merge) that took the evidence's count of three hits' terms 2-3 ms a
// call (index/matched.go).
func deletions(ss *scorch.SegmentSnapshot) *roaring.Bitmap {
	if d := ss.Deleted(); d != nil && !d.IsEmpty() {
		return d
	}
	return nil
}

// dict returns the text field's term dictionary of a segment, opened once
// per search: opening it builds the segment's FST reader, which cost more
// than the postings lookups themselves (a third of a prefix query's time
// when each term and each cursor opened its own).
func (s *collStats) dict(ss *scorch.SegmentSnapshot) (segment.TermDictionary, error) {
	if d, ok := s.dicts[ss]; ok {
		return d, nil
	}
	d, err := ss.Segment().Dictionary(fieldText)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if s.dicts == nil {
		s.dicts = map[*scorch.SegmentSnapshot]segment.TermDictionary{}
	}
	s.dicts[ss] = d
	return d, nil
}

// postings opens term's postings in the segment.
func (s *collStats) postings(sg *statSeg, term string) (segPostings, error) {
	dict, err := s.dict(sg.ss)
	if err != nil {
		return segPostings{}, err
	}
	pl, err := dict.PostingsList([]byte(term), deletions(sg.ss), nil)
	if err != nil {
		return segPostings{}, fmt.Errorf("index: %w", err)
	}
	p := segPostings{count: pl.Count()}
	if p.count == 0 {
		return p, nil
	}
	it := pl.Iterator(false, false, false, nil)
	if opt, ok := it.(segment.OptimizablePostingsIterator); ok {
		if d, one := opt.DocNum1Hit(); one {
			p.one, p.hasOne = d, true
			return p, nil
		}
		if bm := opt.ActualBitmap(); bm != nil {
			p.bm = bm
			return p, nil
		}
	}
	p.it = it
	return p, nil
}

// count counts the readable documents of p in segment sg.
func (s *collStats) count(sg *statSeg, p segPostings) (int, error) {
	n := 0
	switch {
	case p.count == 0:
	case p.hasOne:
		if s.readableOrd(sg.ords, p.one) {
			n++
		}
	case p.bm != nil && sg.local != nil:
		n = int(p.bm.AndCardinality(sg.local))
	case p.bm != nil:
		buf := make([]uint32, 256)
		mi := p.bm.ManyIterator()
		for k := mi.NextMany(buf); k > 0; k = mi.NextMany(buf) {
			for _, d := range buf[:k] {
				if s.readableOrd(sg.ords, uint64(d)) {
					n++
				}
			}
		}
	default:
		for {
			d, err := p.it.Next()
			if err != nil {
				return 0, fmt.Errorf("index: %w", err)
			}
			if d == nil {
				break
			}
			if s.readableOrd(sg.ords, d.Number()) {
				n++
			}
		}
	}
	return n, nil
}

// fillLengths sets the catalog's text lengths from the documents of r
// after LoadCatalog (which knows the access fields only): once, by the
// first search; the stored length of each live document is read from its
// segment. Apply sets the lengths of what it indexes.
func (ix *Index) fillLengths(r bindex.IndexReader) error {
	ix.lensMu.Lock()
	defer ix.lensMu.Unlock()
	if !ix.lensStale {
		return nil
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return fmt.Errorf("index: statistics need a scorch snapshot, got %T", r)
	}
	for _, ss := range snap.Segments() {
		seg, del := ss.Segment(), deletions(ss)
		for i := range seg.Count() {
			if del != nil && del.Contains(uint32(i)) {
				continue
			}
			var id string
			var n int64
			err := seg.VisitStoredFields(i, func(field string, _ byte, v []byte, _ []uint64) bool {
				switch field {
				case "_id":
					id = string(v)
				case fieldLen:
					if x, err := numeric.PrefixCoded(v).Int64(); err == nil {
						n = int64(numeric.Int64ToFloat64(x))
					}
				}
				return true
			})
			if err != nil {
				return fmt.Errorf("index: segment %d document %d: %w", ss.Id(), i, err)
			}
			if id != "" && n > 0 {
				ix.cat.SetLength(id, uint32(n))
			}
		}
	}
	ix.lensStale = false
	return nil
}

// readerStats opens a reader and the statistics of acc's readable set
// (readable when the caller has it, or of every entry when global); close
// the reader after the last use.
func (ix *Index) readerStats(acc Access, global bool, readable *roaring.Bitmap) (*collStats, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	switch {
	case global:
		readable = nil
	case readable == nil:
		readable = ix.cat.Allowed(catalogQuery(Query{Access: acc}))
	}
	st, err := ix.statsFor(r, readable)
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return st, nil
}

func (s *collStats) close() { _ = s.r.Close() }
