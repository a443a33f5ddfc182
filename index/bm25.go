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
	iids, err := readerIDs(st.r, hits)
	if err != nil {
		return err
	}
	scores := make([]float64, len(hits))
	avgdl := st.avgdl()
	order, qtf := queryTerms(terms)
	for _, t := range order {
		tfr, idf, err := st.termReader(ctx, t, qtf[t])
		if err != nil {
			return err
		}
		if tfr == nil {
			continue
		}
		err = holders(tfr, iids, func(i int, d *bindex.TermFieldDoc) {
			scores[i] += bm25Term(idf, d.Freq, d.Norm, avgdl)
		})
		tfr.Close()
		if err != nil {
			return err
		}
	}
	for i, h := range hits {
		h.Score = scores[i]
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID
	})
	return nil
}

// readerIDs returns the internal ids of hits in r (nil for an entry r
// does not hold). The search ran on a snapshot of its own: a hit's
// internal id is r's when it names the same entry (no merge or write in
// between, the common case); otherwise the id is looked up.
func readerIDs(r bindex.IndexReader, hits []*search.DocumentMatch) ([]bindex.IndexInternalID, error) {
	out := make([]bindex.IndexInternalID, len(hits))
	for i, h := range hits {
		iid := h.IndexInternalID
		if !sameEntry(r, iid, h.ID) {
			var err error
			if iid, err = r.InternalID(h.ID); err != nil {
				return nil, fmt.Errorf("index: %w", err)
			}
		}
		if iid != nil {
			out[i] = append(bindex.IndexInternalID(nil), iid...)
		}
	}
	return out, nil
}

// holders calls fn with each document of iids (by index; nil ids are
// skipped) that tfr's term occurs in, with its posting, reading the list
// forward once.
func holders(tfr bindex.TermFieldReader, iids []bindex.IndexInternalID, fn func(i int, d *bindex.TermFieldDoc)) error {
	order := make([]int, 0, len(iids))
	for i, iid := range iids {
		if iid != nil {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return iids[order[a]].Compare(iids[order[b]]) < 0 })
	var tfd bindex.TermFieldDoc
	var d *bindex.TermFieldDoc
	for _, i := range order {
		if d == nil || d.ID.Compare(iids[i]) < 0 {
			var err error
			if d, err = tfr.Advance(iids[i], tfd.Reset()); err != nil {
				return fmt.Errorf("index: %w", err)
			}
			if d == nil {
				return nil
			}
		}
		if d.ID.Equals(iids[i]) {
			fn(i, d)
		}
	}
	return nil
}

// sameEntry reports whether iid names the entry id in r (scorch's
// ExternalID reads eight bytes of iid: a shorter one is never asked).
func sameEntry(r bindex.IndexReader, iid bindex.IndexInternalID, id string) bool {
	if len(iid) != 8 {
		return false
	}
	ext, err := r.ExternalID(iid)
	return err == nil && ext == id
}
