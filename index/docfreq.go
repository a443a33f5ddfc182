package index

import (
	"context"
	"fmt"
)

// DocFreqs reports, for each word, the number of indexed entries holding
// it after analysis, and the number of indexed entries: the collection
// statistics a reranker weighs query terms with. A word the analyzer drops
// (a stop word) counts as held by every entry; a word that analyzes to
// several terms counts by its rarest.
func (ix *Index) DocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, 0, fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, 0, fmt.Errorf("index: %w", err)
	}
	defer r.Close()
	n64, err := r.DocCount()
	if err != nil {
		return nil, 0, fmt.Errorf("index: %w", err)
	}
	n := int(n64)
	out := make([]int, len(words))
	for i, w := range words {
		terms := ix.analyze(w)
		out[i] = n
		for _, t := range terms {
			tfr, err := r.TermFieldReader(ctx, []byte(t), fieldText, false, false, false)
			if err != nil {
				return nil, 0, fmt.Errorf("index: %w", err)
			}
			out[i] = min(out[i], int(tfr.Count()))
			_ = tfr.Close()
		}
	}
	return out, n, nil
}
