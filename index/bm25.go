package index

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
)

// BM25 parameters of the rescoring stage: the textbook (Robertson/Sparck
// Jones) defaults, also Lucene's and Elasticsearch's.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rescoreDepth is how many of Bleve's best candidates the BM25 stage
// rescores (at least the requested size).
const rescoreDepth = 200

// textStats are the collection statistics of the text field.
type textStats struct {
	docs   uint64
	tokens uint64
}

func (s textStats) avgdl() float64 {
	if s.docs == 0 {
		return 1
	}
	return float64(s.tokens) / float64(s.docs)
}

// scanTextStats sums the term frequencies of every posting of the text
// field.
func scanTextStats(ctx context.Context, r bindex.IndexReader) (textStats, error) {
	var st textStats
	n, err := r.DocCount()
	if err != nil {
		return st, err
	}
	st.docs = n
	dict, err := r.FieldDict(fieldText)
	if err != nil {
		return st, err
	}
	defer dict.Close()
	var tfd bindex.TermFieldDoc
	for {
		e, err := dict.Next()
		if err != nil {
			return st, err
		}
		if e == nil {
			break
		}
		tfr, err := r.TermFieldReader(ctx, []byte(e.Term), fieldText, true, false, false)
		if err != nil {
			return st, err
		}
		for {
			d, err := tfr.Next(tfd.Reset())
			if err != nil {
				tfr.Close()
				return st, err
			}
			if d == nil {
				break
			}
			st.tokens += d.Freq
		}
		tfr.Close()
	}
	return st, nil
}

// rescoreBM25 replaces the scores of hits by textbook BM25 over terms
// and sorts them (score DESC, id DESC).
func (ix *Index) rescoreBM25(ctx context.Context, hits []*search.DocumentMatch, terms []string, st textStats) error {
	if len(hits) == 0 || len(terms) == 0 {
		return nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil {
		return err
	}
	type cand struct {
		hit   *search.DocumentMatch
		iid   bindex.IndexInternalID
		score float64
	}
	cands := make([]cand, 0, len(hits))
	for _, h := range hits {
		iid, err := r.InternalID(h.ID)
		if err != nil {
			return err
		}
		c := cand{hit: h}
		if iid != nil {
			c.iid = append(bindex.IndexInternalID(nil), iid...)
		}
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].iid.Compare(cands[j].iid) < 0 })
	avgdl := st.avgdl()
	seen := map[string]bool{}
	var tfd bindex.TermFieldDoc
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		tfr, err := r.TermFieldReader(ctx, []byte(t), fieldText, true, true, false)
		if err != nil {
			return err
		}
		df := tfr.Count()
		if df == 0 {
			tfr.Close()
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		for i := range cands {
			if cands[i].iid == nil {
				continue
			}
			d, err := tfr.Advance(cands[i].iid, tfd.Reset())
			if err != nil {
				tfr.Close()
				return err
			}
			if d == nil {
				break
			}
			if !d.ID.Equals(cands[i].iid) {
				continue
			}
			tf := float64(d.Freq)
			dl := 1.0
			if d.Norm > 0 {
				dl = math.Round(1 / (d.Norm * d.Norm))
			}
			cands[i].score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avgdl))
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

var _ = fmt.Sprintf
