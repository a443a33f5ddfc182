package index

// The BM25 stage. Bleve's BM25 is not the textbook function (see
// qbuilder), so every allowed match is scored (exact.go) with Okapi BM25
// as Lucene and Elasticsearch define it:
//
//	score(d) = sum over query terms t of
//	           qtf(t) * idf(t) * tf(t,d) * (k1 + 1) /
//	           (tf(t,d) + k1 * (1 - b + b * dl(d) / avgdl))
//	idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//
// with raw term frequency, one idf per term, a repeated query term counted
// per occurrence (qtf), no coordination factor, k1 = 1.2 and b = 0.75
// (the one formula, index/bm25, which knowledge search shares); a
// prefix is one term over its expansions (units.go).
// tf and the document length dl (1/norm^2, the analyzed term count) come
// from the postings; df, the document count N and avgdl are counted over
// the caller's readable set (stats.go). On Cranfield this raised nDCG@10
// from 0.354 to 0.373 (README, Full-text search).

import (
	"context"
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/contextd/contextd/index/bm25"
)

// rescoreDepth is how many of Bleve's best candidates the BM25 stage
// rescores (at least the requested size, which the engine sets to its rank
// depth of 100). A deeper pool (200 or 2,000 candidates) ranked Cranfield
// identically (nDCG@10 0.3728) and cost query latency, so the stage
// reorders the candidates the ordering is cut from.
const rescoreDepth = 100

// queryTerms returns the distinct terms in first-occurrence order (the
// order scores are summed in) and each one's count in the query.
func queryTerms(terms []string) ([]string, map[string]int) {
	qtf := map[string]int{}
	var order []string
	for _, t := range terms {
		if qtf[t] == 0 {
			order = append(order, t)
		}
		qtf[t]++
	}
	return order, qtf
}

// termReader opens term's postings with frequencies and norms and returns
// its idf times qtf, the query's count of it; a nil reader when no entry
// of the collection holds term.
func (st *collStats) termReader(ctx context.Context, term string, qtf int) (bindex.TermFieldReader, float64, error) {
	df, err := st.docFreq(ctx, term)
	if err != nil || df == 0 {
		return nil, 0, err
	}
	tfr, err := st.r.TermFieldReader(ctx, []byte(term), fieldText, true, true, false)
	if err != nil {
		return nil, 0, fmt.Errorf("index: %w", err)
	}
	idf := bm25.IDF(float64(df), float64(st.docs))
	return tfr, idf * float64(qtf), nil
}

// rescoreBM25 replaces the scores of hits by textbook BM25 over terms
// and sorts them (score DESC, id DESC), with the statistics st and its
// reader.
func rescoreBM25(ctx context.Context, hits []*search.DocumentMatch, terms []string, st *collStats) error {
	if len(hits) == 0 || len(terms) == 0 {
		return nil
	}
	r := st.r
	type cand struct {
		hit   *search.DocumentMatch
		iid   bindex.IndexInternalID
		score float64
	}
	cands := make([]cand, 0, len(hits))
	for _, h := range hits {
		// The search ran on a snapshot of its own: its internal id is
		// this reader's when it names the same entry (no merge or write
		// in between, the common case); otherwise look the id up.
		iid := h.IndexInternalID
		if ext, err := r.ExternalID(iid); iid == nil || err != nil || ext != h.ID {
			if iid, err = r.InternalID(h.ID); err != nil {
				return err
			}
		}
		c := cand{hit: h}
		if iid != nil {
			c.iid = append(bindex.IndexInternalID(nil), iid...)
		}
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].iid.Compare(cands[j].iid) < 0 })
	avgdl := st.avgdl()
	order, qtf := queryTerms(terms)
	var tfd bindex.TermFieldDoc
	for _, t := range order {
		tfr, idf, err := st.termReader(ctx, t, qtf[t])
		if err != nil {
			return err
		}
		if tfr == nil {
			continue
		}
		var cur bindex.IndexInternalID // the reader's position
		var freq uint64
		var norm float64
		for i := range cands {
			iid := cands[i].iid
			if iid == nil {
				continue
			}
			if cur == nil || cur.Compare(iid) < 0 {
				d, err := tfr.Advance(iid, tfd.Reset())
				if err != nil {
					tfr.Close()
					return err
				}
				if d == nil {
					break
				}
				cur = append(cur[:0], d.ID...)
				freq, norm = d.Freq, d.Norm
			}
			if !cur.Equals(iid) {
				continue
			}
			cands[i].score += bm25Term(idf, freq, norm, avgdl)
		}
		tfr.Close()
	}
	for i := range cands {
		cands[i].hit.Score = cands[i].score
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID
	})
	return nil
}
