package knowledge

import (
	"github.com/contextd/contextd/index/bm25"
	"github.com/contextd/contextd/internal/rank"
)

// evidenceChunks is how many of the keyword leg's first chunks are read
// for the evidence of the adaptive fusion, as the context tools read the
// first three full-text hits.
const evidenceChunks = 3

// matchWeight is knowledge Hybrid's cap of the semantic weight on a
// lexical match by share (rank.Evidence.Match): the context tools'
// default weight. At upstream's 0.5 the built-in embedder's ranking of
// source files (semantic MRR@10 0.44 on the code set's choosing half,
// keyword 0.58) pulled chunks holding the question's words below ones
// that merely read alike. Chosen on the choosing halves among caps 0.06,
// 0.1, 0.2, 0.3 and none, with the share weighed by rarity: Cranfield's
// odd half (each document uploaded as one, top-10 chunks deduplicated by
// document, nDCG@10) 0.3478 / 0.3514 / 0.3501 / 0.3498 / 0.3491 (0.3500
// before the cap and the rarity); MRR@10 on the code set's choosing half
// 0.614 at caps 0.02-0.3 (0.585 without), the documentation set's 0.639 at
// 0.02-0.1 (0.623 at 0.2 and 0.3, 0.615 without).
const matchWeight = rank.DefaultSemanticWeight

// keywordEvidence is what the keyword leg says about a Hybrid query
// (rank.AdaptiveWeight): the distinct English stems of the query's
// positive words (stop words dropped, as the English stream drops them)
// and the most of them the document of one of the leg's first chunks
// holds, in any of its chunks: the context tools read whole entries, and
// a chunk of a source file rarely holds every identifier of a question
// its file answers (the code set's "csv Reader FieldsPerRecord
// LazyQuotes": 2 of 4 in the best chunk, 4 in its file). Each stem also
// weighs its rarity, BM25's IDF over the searched chunks as the keyword
// leg weighs it (rank.Evidence.Rarity): a query the first documents
// match in full costs no count of frequencies. At most maxTerms stems
// are counted, so a long query costs no more than its keyword leg. It
// runs under the index's read lock.
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
	var held [][]bool // by first chunk, the stems its document holds
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
		n, has := 0, make([]bool, len(ids))
		for k, id := range ids {
			if id == noTerm {
				continue
			}
			for j := lo; j <= hi; j++ {
				if st.count(cands[j].c, id) > 0 {
					n++
					has[k] = true
					break
				}
			}
		}
		ev.Matched = max(ev.Matched, n)
		held = append(held, has)
	}
	if ev.Complete() {
		return ev // a share of 1 by count is 1 by rarity too
	}
	idf := stemRarity(cands, st, ids)
	for _, w := range idf {
		ev.Rarity += w
	}
	for _, has := range held {
		m := 0.0
		for k, ok := range has {
			if ok {
				m += idf[k]
			}
		}
		ev.MatchedRarity = max(ev.MatchedRarity, m)
	}
	return ev
}

// stemRarity is each stem's BM25 IDF over the chunks of cands (a stem no
// chunk holds has the greatest).
func stemRarity(cands []candidate, st *kwStream, ids []uint32) []float64 {
	df := make([]int, len(ids))
	for i := range cands {
		for k, id := range ids {
			if id != noTerm && st.count(cands[i].c, id) > 0 {
				df[k]++
			}
		}
	}
	idf := make([]float64, len(ids))
	for k := range ids {
		idf[k] = bm25.IDF(float64(df[k]), float64(len(cands)))
	}
	return idf
}
