package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// matchedTerms counts, for each of hits, how many of the distinct terms
// its entry holds, from the postings of st's reader: what the hybrid
// search's evidence (rank.Evidence) asks of its first full-text hits,
// which it read from their texts in SQL before (a round trip and an
// analysis of each text, 0.17-0.36 ms of a hybrid call at 1M entries).
//
// Each term's list is asked whether it holds the hit's local document,
// deletions aside: a hit is a live document of this reader, so they
// cannot change the answer, and zap's iterator over a list minus
// deletions advances the full list one posting at a time to the target
// (see deletions, stats.go), where the list alone is a bitmap lookup.
// Through Bleve's TermFieldReader, which always subtracts them, the count
// took 2-3 ms of a hybrid call in a process that had just loaded 1M
// entries (the bench's hybrid median 7.58 ms against 4.88 before, the
// other rows 10-15 % apart; BenchmarkMatchedTerms).
func matchedTerms(st *collStats, hits []*search.DocumentMatch, terms []string) ([]int, error) {
	out := make([]int, len(hits))
	if len(hits) == 0 || len(terms) == 0 {
		return out, nil
	}
	snap, ok := st.r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("index: matched terms need a scorch snapshot, got %T", st.r)
	}
	iids, err := readerIDs(st.r, hits)
	if err != nil {
		return nil, err
	}
	segs := snap.Segments()
	type place struct {
		seg   int
		local uint64
	}
	offsets := segmentOffsets(segs)
	at := make([]place, len(hits))
	for i, iid := range iids {
		at[i].seg = -1
		if iid == nil {
			continue
		}
		if k, local := segmentOf(offsets, iid.Value()); k < len(segs) {
			at[i] = place{seg: k, local: local}
		}
	}
	words, _ := queryTerms(terms)
	for _, t := range words {
		for i, p := range at {
			if p.seg < 0 {
				continue
			}
			held, err := holds(st, segs[p.seg], t, p.local)
			if err != nil {
				return nil, err
			}
			if held {
				out[i]++
			}
		}
	}
	return out, nil
}

// holds reports whether term's postings in the segment ss include local
// document d, deletions aside.
func holds(st *collStats, ss *scorch.SegmentSnapshot, term string, d uint64) (bool, error) {
	dict, err := st.dict(ss)
	if err != nil {
		return false, err
	}
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	if pl == nil || pl.Count() == 0 {
		return false, nil
	}
	it := pl.Iterator(false, false, false, nil)
	if opt, ok := it.(segment.OptimizablePostingsIterator); ok {
		if one, ok := opt.DocNum1Hit(); ok {
			return one == d, nil
		}
		if bm := opt.ActualBitmap(); bm != nil {
			return bm.Contains(uint32(d)), nil
		}
	}
	p, err := it.Advance(d)
	if err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	return p != nil && p.Number() == d, nil
}
