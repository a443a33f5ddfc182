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
				if cands[j].c.stems.get(id) > 0 {
					n++
					break
				}
			}
		}
		ev.Matched = max(ev.Matched, n)
	}
	return ev
}
