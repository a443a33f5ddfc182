package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/contextd/contextd/index/bm25"
)

// Candidate selection with term pruning. A disjunction of common words
// (the OR form of a long question, which hybrid search's full-text leg
// sends) matches most of the collection, and Bleve visits every match to
// pick its best candidates: the cost grows with the collection. But a
// common word weighs little: under BM25 a term t adds at most
//
//	bound(t) = qtf(t) · idf(t) · (k1 + 1)
//
// to any document. So the candidates are selected with the rarest terms
// only, as many of them as the candidate bound allows (limits.go), and
// rescored by BM25 with every term; when the depth-th score θ is at least
// the summed bound of the terms left out, no document matching only those
// terms can enter the ranking, and the answer is exact (the MaxScore
// argument of Turtle & Flood 1995). When the bound leaves every term in,
// the selection is the full disjunction.
//
// The selection used to start with the fewest rare terms that could fill
// the depth and double while that argument failed, each selection a walk
// of its own. That paid when a selection cost what it matched (Bleve
// visited every match), but the MaxScore walk (maxscore.go) skips the
// documents that only common words hold once θ is up, so a larger
// selection costs little more than a small one, and a second walk costs
// a whole walk: at 1M entries 41 of the bench's 100 hybrid questions ran
// two or three selections. Alternated call by call on the kept 1M
// database (six rounds of the 100 questions), the largest selection at
// once put the hybrid medians 6-10 % lower (4.48-5.27 ms against
// 4.96-5.71) and the sums 6-9 % lower, with the same top 10 for every
// question; at 100k the medians were within ±2 % (2026-12-06). Its
// answer is never less exact: where the doubling stopped at the bound,
// the largest selection within it holds at least those terms.

// Candidate pools, in multiples of the depth, of Bleve's selection, which
// only PoolSelection (the behaviour before exact.go, kept for side-by-side
// benchmarks and as the leaking baseline in tests) still uses: every
// caller's candidates are every allowed match, scored exactly. Bleve picks
// a pool by its own score, which is not BM25's: a pool twice the depth
// made the rescored top 100 of a full selection match the exact ranking
// on the pruning test's collection (70-78 of 100 entries with a pool of
// one depth); a pruned selection is rescored whole up to ten depths.
const (
	fullPool = 2
	maxPool  = 10
)

// rank selects and scores the candidates of tq (wrapped in the prefilter by
// wrap) and returns them best first with the query that produced them.
// readable is q's caller's readable set when the caller has it (nil:
// computed here).
func (ix *Index) rank(ctx context.Context, q Query, b *qbuilder, tq query.Query, wrap func(query.Query) query.Query, readable *roaring.Bitmap) (sr *bleve.SearchResult, bq query.Query, matched []int, err error) {
	// PoolSelection keeps the behaviour before: Bleve's pool rescored
	// with the query's terms, and prefix queries in Bleve's own order.
	rescore := len(b.terms) > 0 || len(b.prefixes) > 0
	if q.PoolSelection && b.prefix {
		rescore = false
	}
	depth := q.Size
	var st *collStats
	var units []scoreUnit
	if rescore {
		depth = max(depth, rescoreDepth)
		if st, err = ix.readerStats(q.Access, q.GlobalStats, readable); err != nil {
			return nil, nil, nil, fmt.Errorf("index: search: %w", err)
		}
		defer st.close()
		if units, err = scoreUnits(st.r, b.terms, b.prefixes); err != nil {
			return nil, nil, nil, fmt.Errorf("index: search: %w", err)
		}
		if q.Matched > 0 && !b.prefix && len(b.terms) > 0 {
			// Counted on every return with the final hits, with st's
			// reader (this runs before the deferred st.close).
			defer func() {
				if err == nil {
					if matched, err = matchedTerms(st, sr.Hits[:min(q.Matched, len(sr.Hits))], b.terms); err != nil {
						sr, bq = nil, nil
					}
				}
			}()
		}
	}
	run := func(sel query.Query, pool int) (*bleve.SearchResult, error) {
		if rescore && !q.PoolSelection {
			// Bleve's pool would be chosen by its own score, with
			// collection-wide statistics (exact.go).
			return ix.selectExact(ctx, wrap(sel), units, st, depth, q.Highlight)
		}
		req := bleve.NewSearchRequestOptions(wrap(sel), pool, 0, false)
		if !rescore {
			// The final order breaks ties by id DESC. With the BM25 stage
			// that stage sorts (score, id), and Bleve's default order
			// (score, then index order) only picks the candidates: sorting
			// by id here would load every match's id.
			req.SortBy([]string{"-_score", "-_id"})
		}
		req.IncludeLocations = q.Highlight
		sr, err := ix.bi.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("index: search: %w", err)
		}
		if rescore {
			if err := rescoreBM25(ctx, sr.Hits, b.terms, st); err != nil {
				return nil, fmt.Errorf("index: rescore: %w", err)
			}
		}
		return sr, nil
	}
	terms := disjunctTerms(tq)
	if !rescore || len(terms) < 3 || ix.noPrune {
		sr, err := run(tq, fullPool*depth)
		if err != nil {
			return nil, nil, nil, err
		}
		return trim(sr, q.Size), wrap(tq), nil, nil
	}
	bounds, err := termBounds(ctx, st, terms, b.terms)
	if err != nil {
		return nil, nil, nil, err
	}
	// Rarest (largest bound) first; the selection is the fewest terms
	// whose document counts could fill the depth, then as many more as the
	// candidate bound allows: only an entry holding none of them but
	// enough of the common ones left out can be missed, and none is when θ
	// reaches the summed bound of those.
	slices.SortStableFunc(bounds, func(a, b termBound) int {
		switch {
		case a.bound > b.bound:
			return -1
		case a.bound < b.bound:
			return 1
		}
		return 0
	})
	k, docs := 0, 0
	for k < len(bounds) && docs < depth {
		docs += bounds[k].df
		k++
	}
	for k < len(bounds) && docs+bounds[k].df <= ix.candidateLimit() {
		docs += bounds[k].df
		k++
	}
	if k == len(bounds) {
		sr, err := run(tq, fullPool*depth)
		if err != nil {
			return nil, nil, nil, err
		}
		return trim(sr, q.Size), wrap(tq), nil, nil
	}
	sel := make([]query.Query, k)
	for i := range sel {
		t := bleve.NewTermQuery(bounds[i].term)
		t.SetField(fieldText)
		sel[i] = t
	}
	selq := query.Query(bleve.NewDisjunctionQuery(sel...))
	// Bleve ranks the pool by the selected terms alone, and the terms left
	// out still move documents into the top after rescoring. So every
	// document of the selection is rescored when they number at most
	// maxPool·depth, else the best maxPool·depth of Bleve's (an
	// approximation, like the pool of the full disjunction). Without
	// PoolSelection, run scores the whole selection (exact.go).
	sr, err = run(selq, min(max(docs, 2*depth), maxPool*depth))
	if err != nil {
		return nil, nil, nil, err
	}
	return trim(sr, q.Size), wrap(selq), nil, nil
}

// trim cuts a result to its best n hits.
func trim(sr *bleve.SearchResult, n int) *bleve.SearchResult {
	if len(sr.Hits) > n {
		sr.Hits = sr.Hits[:n]
	}
	return sr
}

// disjunctTerms returns the terms of a disjunction of single-term queries
// on the text field (nil for any other shape: phrases, conjunctions,
// negations and prefixes are selected as written).
func disjunctTerms(q query.Query) []string {
	d, ok := q.(*query.DisjunctionQuery)
	if !ok || d.Min > 1 {
		return nil
	}
	var out []string
	for _, c := range d.Disjuncts {
		t, ok := c.(*query.TermQuery)
		if !ok || t.FieldVal != fieldText {
			return nil
		}
		if !slices.Contains(out, t.Term) {
			out = append(out, t.Term)
		}
	}
	return out
}

// termBound is a term's document count and BM25 upper bound.
type termBound struct {
	term  string
	df    int
	bound float64
}

// termBounds computes each term's bound: qtf · idf · (k1 + 1), the most a
// term can add to a document's textbook BM25 score (the tf factor tends to
// k1 + 1), with qtf counted over all, the query's positive terms, and idf
// from st, the statistics the BM25 stage scores with.
func termBounds(ctx context.Context, st *collStats, terms, all []string) ([]termBound, error) {
	n := st.docs
	out := make([]termBound, len(terms))
	for i, t := range terms {
		df, err := st.docFreq(ctx, t)
		if err != nil {
			return nil, err
		}
		qtf := 0
		for _, a := range all {
			if a == t {
				qtf++
			}
		}
		out[i] = termBound{term: t, df: df, bound: float64(max(qtf, 1)) * bm25.IDF(float64(df), float64(n)) * bm25.MaxTF}
	}
	return out, nil
}
