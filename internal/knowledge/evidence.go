package knowledge

import "github.com/contextd/contextd/internal/rank"

// evidenceChunks is how many of the keyword leg's first chunks are read
// for the evidence of the adaptive fusion, as the context tools read the
// first three full-text hits.
const evidenceChunks = 3

// keywordEvidence is what the keyword leg says about a Hybrid query
// (rank.AdaptiveWeight): the distinct English stems of the query's
// positive words (stop words dropped, as the English stream drops them)
// and the most of them the document of one of the leg's first chunks
// holds, in any of its chunks: the context tools read whole entries, and
// a chunk of a source file rarely holds every identifier of a question
// its file answers (the code set's "csv Reader FieldsPerRecord
// LazyQuotes": 2 of 4 in the best chunk, 4 in its file). At most
// maxTerms stems are counted, so a long query costs no more than its
// keyword leg. It runs under the index's read lock.
func keywordEvidence(cands []candidate, kw []scored, text string, v *vocab, maxTerms int) rank.Evidence {
	stems := parseKeyword(text).stemmed.positives()
	if len(stems) == 0 {
		return rank.Evidence{}
	}
	stems = stems[:min(len(stems), maxTerms)]
	ids := make([]uint32, len(stems))
	for i, t := range stems {
		ids[i] = v.lookup(t)
	}
	st := v.stemStream(ids)
	ev := rank.Evidence{Terms: len(ids)}
	for _, h := range top(cands, kw, evidenceChunks) {
		// A document's chunks are adjacent in cands (Search appends them
		// document by document).
		doc := cands[h.i].doc
		lo, hi := int(h.i), int(h.i)
		for lo > 0 && cands[lo-1].doc == doc {
			lo--
		}
		for hi+1 < len(cands) && cands[hi+1].doc == doc {
			hi++
		}
		n := 0
		for _, id := range ids {
			if id == noTerm {
				continue
			}
			for j := lo; j <= hi; j++ {
				if st.count(cands[j].c, id) > 0 {
					n++
					break
				}
			}
		}
		ev.Matched = max(ev.Matched, n)
	}
	return ev
}

// hybridWeight is the semantic side's weight of a Hybrid query: the
// context tools' adaptive weight from base (rank.AdaptiveWeight), and at
// most rank.DefaultSemanticWeight (0.1) when one document of the first
// keyword chunks holds every word of the query. At 0.5, upstream's
// weight, the built-in embedder's ranking of source files (semantic
// MRR@10 0.44 on the code set's choosing half, keyword 0.58) pulled
// chunks that held every word below ones that merely read alike: on the
// choosing halves, the code set's Hybrid went from 0.585 to 0.610 (0.1 for
// every lexical match: 0.596; a base of 0.3: 0.598) and the documentation
// set's from 0.615 to 0.639, its paraphrases unchanged.
func hybridWeight(base float64, ev rank.Evidence) float64 {
	a := rank.AdaptiveWeight(base, ev)
	if ev.Complete() {
		a = min(a, rank.DefaultSemanticWeight)
	}
	return a
}
