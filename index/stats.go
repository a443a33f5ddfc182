package index

// Collection statistics over the caller's readable set.
//
// BM25 weighs a term by its document frequency df among N documents and
// normalizes by the average text length avgdl. Counted over every indexed
// entry, these move when another principal stores private entries, so a
// score told the caller whether words it cannot read exist (issue 11). An
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
}

// statSeg is one segment of the reader with its ordinal array.
type statSeg struct {
	ss   *scorch.SegmentSnapshot
	ords []uint32
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
	st := &collStats{r: r, df: map[string]int{}}
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
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("index: statistics need a scorch snapshot, got %T", r)
	}
	segs := snap.Segments()
	for _, ss := range segs {
		if ss.Count() == 0 {
			continue
		}
		e, err := ix.segmentOrds(ss, segs)
		if err != nil {
			return nil, err
		}
		st.segs = append(st.segs, statSeg{ss: ss, ords: e.ords})
	}
	return st, nil
}

// docFreq is the number of collection entries whose text holds term.
func (s *collStats) docFreq(ctx context.Context, term string) (int, error) {
	if n, ok := s.df[term]; ok {
		return n, nil
	}
	var n int
	if s.readable == nil {
		tfr, err := s.r.TermFieldReader(ctx, []byte(term), fieldText, false, false, false)
		if err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
		n = int(tfr.Count())
		_ = tfr.Close()
	} else {
		for _, sg := range s.segs {
			c, err := s.segmentDocFreq(sg, term)
			if err != nil {
				return 0, err
			}
			n += c
		}
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

// segmentDocFreq counts the readable live documents of one segment that
// hold term.
func (s *collStats) segmentDocFreq(sg statSeg, term string) (int, error) {
	dict, err := sg.ss.Segment().Dictionary(fieldText)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	pl, err := dict.PostingsList([]byte(term), sg.ss.Deleted(), nil)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	it := pl.Iterator(false, false, false, nil)
	n := 0
	// zap exposes the postings (deletions removed) as a bitmap, or a
	// single document: iterate them without decoding postings.
	if opt, ok := it.(interface {
		ActualBitmap() *roaring.Bitmap
		DocNum1Hit() (uint64, bool)
	}); ok {
		if d, one := opt.DocNum1Hit(); one {
			if s.readableOrd(sg.ords, d) {
				n++
			}
			return n, nil
		}
		if bm := opt.ActualBitmap(); bm != nil {
			buf := make([]uint32, 256)
			mi := bm.ManyIterator()
			for k := mi.NextMany(buf); k > 0; k = mi.NextMany(buf) {
				for _, d := range buf[:k] {
					if s.readableOrd(sg.ords, uint64(d)) {
						n++
					}
				}
			}
			return n, nil
		}
	}
	for {
		p, err := it.Next()
		if err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
		if p == nil {
			return n, nil
		}
		if s.readableOrd(sg.ords, p.Number()) {
			n++
		}
	}
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
		seg, del := ss.Segment(), ss.Deleted()
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

// readerStats opens a reader and the statistics of acc's readable set (or
// of every entry when global); close the reader after the last use.
func (ix *Index) readerStats(acc Access, global bool) (*collStats, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	var readable *roaring.Bitmap
	if !global {
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
