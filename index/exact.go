package index

// Exact candidate selection over the caller's readable set.
//
// Bleve picks a pool of candidates by its own score, whose document
// frequencies, document count and average length are counted over every
// indexed entry; the BM25 stage (bm25.go) rescored that pool. When a
// caller has more matches than the pool, which of them reach the page then
// depended on entries it cannot read. So the pool is never
// Bleve's: every match of the text query inside the allowed set is visited
// (the text searcher without scores, behind the same prefilter) and scored
// by the BM25 stage's function with the readable-set statistics, and the
// best depth are kept in a bounded heap ordered as the final ranking
// (score DESC, id DESC). The ranking is then the exact BM25 top over the
// allowed matches, a function of what the caller can read alone.
//
// This holds for a caller who reads every entry too. Until 2026-12-03 such
// a caller kept Bleve's pool (its statistics are the readable set's
// already), which left one bit observable: when the first entry it cannot
// read appeared, its searches moved from Bleve's pool to the exact top,
// which differs beyond the pool's reach (Bleve breaks ties by index order,
// the ranking by id DESC). On Cranfield, exact selection for every caller
// leaves nDCG@10 unchanged and moves MAP in the fourth decimal.
//
// The cost is the visit of every allowed match, which Bleve's selection
// also pays (it scores every match to pick its pool), plus one postings
// advance per query unit and match for the term frequencies and lengths;
// Bleve's scoring, its id loads for the pool and the rescoring of the pool
// are saved (README, "Full-text benchmarks" and "Access and sharing").
// A disjunction of terms over a large allowed set skips, document at a
// time, the matches that cannot enter the top (maxscore.go).

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/contextd/contextd/index/bm25"
)

// bm25Term is one term's textbook BM25 contribution to a document
// (bm25.go): idf already multiplied by the query term's count, freq and
// norm from the postings.
func bm25Term(idf float64, freq uint64, norm, avgdl float64) float64 {
	return bm25Weight(idf, freq, docLen(norm), avgdl)
}

// bm25Weight is bm25Term for a document of length dl (docLen of its norm).
func bm25Weight(idf float64, freq uint64, dl, avgdl float64) float64 {
	return idf * bm25.TF(float64(freq), dl, avgdl)
}

// exactHit is a kept candidate: its global document number, score and id
// (the MaxScore selection names it from its catalog ordinal once it is
// kept: maxscore_heap.go).
type exactHit struct {
	doc   uint64
	score float64
	id    string
	ord   uint32
}

// worse orders the heap: the worst kept candidate at the root.
func worse(a, b exactHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id < b.id
}

type exactHeap []exactHit

func (h exactHeap) Len() int           { return len(h) }
func (h exactHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h exactHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *exactHeap) Push(x any)        { *h = append(*h, x.(exactHit)) }
func (h *exactHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// selectExact returns the best depth matches of sel (the text query inside
// the prefilter) by textbook BM25 over units with the statistics st, read
// from st's reader, best first (score DESC, id DESC); Total counts every
// match visited (MaxScore skips some). With locations, the hits carry their term locations in sel.
// A disjunction of term queries over a large allowed set is selected
// document at a time with MaxScore skipping (maxscore.go).
func (ix *Index) selectExact(ctx context.Context, sel query.Query, units []scoreUnit, st *collStats, depth int, locations bool) (*bleve.SearchResult, error) {
	snap, ok := st.r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("index: exact selection needs a scorch snapshot, got %T", st.r)
	}
	if plan := ix.maxScorePlan(sel, units); plan != nil {
		return ix.selectMaxScore(ctx, sel, plan, units, st, snap, depth, locations)
	}
	segs := snap.Segments()
	offsets := segmentOffsets(segs)
	ords := make([][]uint32, len(segs))
	for k, s := range segs {
		if s.Count() == 0 {
			continue
		}
		e, err := ix.segmentOrds(s, segs)
		if err != nil {
			return nil, err
		}
		ords[k] = e.ords
	}
	idOf := func(n uint64) string {
		k, local := segmentOf(offsets, n)
		if k >= len(segs) || local >= uint64(len(ords[k])) {
			return ""
		}
		o := ords[k][local]
		if o == noOrd {
			return ""
		}
		id, _ := ix.cat.ID(o)
		return id
	}

	// The unit cursors are opened at the first match: a search with no
	// allowed match (a thread without the words) reads no postings.
	var curs []*unitCursor
	opened := false
	open := func() error {
		opened = true
		for _, u := range units {
			c, err := st.unitReader(ctx, u)
			if err != nil {
				return err
			}
			if c != nil {
				curs = append(curs, c)
			}
		}
		return nil
	}
	avgdl := st.avgdl()

	kept := make(exactHeap, 0, depth)
	total, k := 0, 0
	err := ix.eachMatch(ctx, sel, st.r, func(n uint64) error {
		total++
		if !opened {
			if err := open(); err != nil {
				return err
			}
		}
		for k+1 < len(segs) && n >= offsets[k+1] {
			k++ // matches come in ascending global numbers, segment by segment
		}
		score := 0.0
		for _, c := range curs {
			freq, norm, err := c.at(segs[k], n-offsets[k])
			if err != nil {
				return err
			}
			if freq > 0 {
				score += bm25Term(c.idf, freq, norm, avgdl)
			}
		}
		h := exactHit{doc: n, score: score}
		if len(kept) < depth {
			h.id = idOf(n)
			heap.Push(&kept, h)
			return nil
		}
		if score < kept[0].score {
			return nil
		}
		h.id = idOf(n)
		if worse(kept[0], h) {
			kept[0] = h
			heap.Fix(&kept, 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ix.exactResult(ctx, sel, kept, total, locations)
}

// eachMatch calls fn with the global number of every document of r
// matching q, ascending (q's searcher without scores), until fn fails.
func (ix *Index) eachMatch(ctx context.Context, q query.Query, r bindex.IndexReader, fn func(n uint64) error) error {
	s, err := q.Searcher(ctx, r, ix.bi.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return fmt.Errorf("index: search: %w", err)
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0), IndexReader: r}
	for seen := 0; ; seen++ {
		if seen&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		m, err := s.Next(sctx)
		if err != nil {
			return fmt.Errorf("index: search: %w", err)
		}
		if m == nil {
			return nil
		}
		n := m.IndexInternalID.Value()
		sctx.DocumentMatchPool.Put(m)
		if err := fn(n); err != nil {
			return err
		}
	}
}

// exactResult sorts the kept candidates best first (score DESC, id DESC)
// into a search result counting total, with the term locations of sel when
// asked.
func (ix *Index) exactResult(ctx context.Context, sel query.Query, kept exactHeap, total int, locations bool) (*bleve.SearchResult, error) {
	// One comparison per pair: worse twice read both ids of every tie,
	// 0.25 s of the selection's 3.09 s in the 100k hybrid profile
	// (maxscore_heap.go).
	slices.SortFunc(kept, func(a, b exactHit) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(b.id, a.id)
	})
	sr := &bleve.SearchResult{Total: uint64(total), Hits: make(search.DocumentMatchCollection, len(kept))}
	for i, h := range kept {
		sr.Hits[i] = &search.DocumentMatch{ID: h.id, Score: h.score, IndexInternalID: bindex.NewIndexInternalID(nil, h.doc)}
	}
	if locations && len(kept) > 0 {
		if err := ix.fillLocations(ctx, sel, sr.Hits); err != nil {
			return nil, err
		}
	}
	return sr, nil
}

// fillLocations sets the term locations of hits in q: one search of q
// restricted to the hits' ids.
func (ix *Index) fillLocations(ctx context.Context, q query.Query, hits search.DocumentMatchCollection) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(q, bleve.NewDocIDQuery(ids)), len(ids), 0, false)
	req.IncludeLocations = true
	sr, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return fmt.Errorf("index: search: %w", err)
	}
	locs := make(map[string]search.FieldTermLocationMap, len(sr.Hits))
	for _, h := range sr.Hits {
		locs[h.ID] = h.Locations
	}
	for _, h := range hits {
		h.Locations = locs[h.ID]
	}
	return nil
}
