package index

import (
	"context"
)

// ReadableStats are the collection statistics of the entries one caller
// may read, for a reranker (builtin.DocFreqs): the same counts the BM25
// stage scores with (stats.go), so a rerank score does not depend on
// entries the caller cannot read either.
type ReadableStats struct {
	ix  *Index
	acc Access
}

// Stats returns the statistics of acc's readable set.
func (ix *Index) Stats(acc Access) ReadableStats { return ReadableStats{ix: ix, acc: acc} }

// DocFreqs reports, for each word, the number of readable indexed entries
// holding it after analysis, and the number of readable indexed entries.
// A word with no index terms (punctuation) counts as held by every entry;
// a word that analyzes to several terms (fmt.Println) counts by its
// rarest. Stop words are indexed and counted like any word.
func (s ReadableStats) DocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	ix := s.ix
	ix.view.RLock()
	defer ix.view.RUnlock()
	st, err := ix.readerStats(s.acc, false, nil)
	if err != nil {
		return nil, 0, err
	}
	defer st.close()
	n := int(st.docs)
	out := make([]int, len(words))
	for i, w := range words {
		out[i] = n
		for _, t := range ix.analyze(w) {
			df, err := st.docFreq(ctx, t)
			if err != nil {
				return nil, 0, err
			}
			out[i] = min(out[i], df)
		}
	}
	return out, n, nil
}
