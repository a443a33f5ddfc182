package builtin

import (
	"context"

	"github.com/contextd/contextd/index/bm25"
	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/model"
)

// Lexical is the built-in offline reranker: Okapi BM25 over the passages
// plus the term-proximity score of Rasolofo & Savoy (2003, "Term proximity
// scoring for keyword-based retrieval systems", the BM25TP model). It
// needs no model, is deterministic, and the zero value is ready and safe
// for concurrent use.
//
// Terms. Query and passages are tokenized alike (Unicode letters and
// digits, case-folded, then the Snowball English stemmer the full-text
// index applies; see token.Stem). Stop words are dropped from the query unless
// the query has nothing else; a repeated query term counts once.
//
// Weights. With Stats set, idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)) from
// the collection's document frequencies (the engine passes, per request,
// those of the caller's readable set in its full-text index); without it the same formula runs over the n passages of the call,
// so scores are then only comparable within one call.
//
// Score of passage p, with tf(t,p) the occurrences of t, dl(p) its length
// in tokens, avgdl the mean over the call's passages, K = k1·(1 − b + b·dl/avgdl)
// and the textbook k1 = 1.2, b = 0.75:
//
//	bm25(p) = Σ_t idf(t) · tf(t,p)·(k1+1) / (tf(t,p) + K)
//	acc(t)  = Σ over occurrences of t and of another query term t' at most
//	          5 tokens apart: idf(t') / d²
//	tp(p)   = Σ_t min(1, idf(t)) · acc(t)·(k1+1) / (acc(t) + K)
//	score   = (bm25 + tp) / Σ_t (idf(t) + min(1, idf(t)))·(k1+1)   ∈ [0, 1]
//
// The denominator is the score's upper bound, so the normalization keeps
// the order. An empty query (no terms) or a passage without query terms
// scores 0.
type Lexical struct {
	// Stats, when set, supplies collection document frequencies.
	Stats DocFreqs
}

// Lexical is a reranker for the engine's reranking seam.
var _ model.Reranker = Lexical{}

// DocFreqs reports, for each word, how many documents of the collection
// hold it (after the collection's own analysis), and the collection size.
type DocFreqs interface {
	DocFreqs(ctx context.Context, words []string) (df []int, docs int, err error)
}

// lexWindow is the proximity window, in tokens. BM25's k1 and b are
// index/bm25's, the one formula.
const lexWindow = 5

// hit is one occurrence of a query term in a passage.
type hit struct {
	pos  int32 // token position
	term int32 // query term index
}

// lexScanner holds the scratch space of one Rerank call.
type lexScanner struct {
	terms map[string]int32
	// Cheap filters before the map lookup: the byte lengths (mod 64) and
	// the first bytes of the query terms.
	lens   uint64
	firsts [256]bool
	buf    []byte
	stems  map[string]string // token -> stem, per call (snowball is slow)
	hits   []hit
	pos    int32
}

// queryTerms returns the distinct stemmed query terms (stop words dropped
// unless nothing else remains) and the first surface word of each.
func queryTerms(query string) (map[string]int32, []string) {
	type word struct{ stem, surface string }
	var all, kept []word
	buf := make([]byte, 0, 32)
	tokenize(query, buf, func(tok []byte) {
		w := word{surface: string(tok)}
		w.stem = token.Stem(string(tok))
		all = append(all, w)
		if !queryStopwords[w.surface] {
			kept = append(kept, w)
		}
	})
	if len(kept) == 0 {
		kept = all
	}
	terms := make(map[string]int32, len(kept))
	var surface []string
	for _, w := range kept {
		if _, ok := terms[w.stem]; !ok {
			terms[w.stem] = int32(len(terms))
			surface = append(surface, w.surface)
		}
	}
	return terms, surface
}

// scan finds the query-term occurrences of text (s.hits, in position
// order) and returns the passage length in tokens.
func (s *lexScanner) scan(text string) int {
	s.hits = s.hits[:0]
	s.pos = 0
	s.buf = tokenize(text, s.buf, s.emit)
	return int(s.pos)
}

func (s *lexScanner) emit(tok []byte) {
	pos := s.pos
	s.pos++
	if !s.firsts[tok[0]] {
		return // stemming keeps the first byte
	}
	st, ok := s.stems[string(tok)]
	if !ok {
		st = token.Stem(string(tok))
		s.stems[string(tok)] = st
	}
	if s.lens&(1<<(len(st)&63)) == 0 {
		return
	}
	if t, ok := s.terms[string(st)]; ok {
		s.hits = append(s.hits, hit{pos: pos, term: t})
	}
}

// Rerank returns one score in [0, 1] per passage, higher is more relevant,
// as described on [Lexical]. It fails when ctx is done or Stats fails.
func (l Lexical) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	scores := make([]float64, len(passages))
	if len(passages) == 0 {
		return scores, nil
	}
	terms, surface := queryTerms(query)
	m := len(terms)
	if m == 0 {
		return scores, nil
	}
	s := lexScanner{terms: terms, buf: make([]byte, 0, 64), hits: make([]hit, 0, 64), stems: map[string]string{}}
	for t := range terms {
		s.lens |= 1 << (len(t) & 63)
		s.firsts[t[0]] = true
	}
	// One pass collects every passage's hits and length.
	hits := make([][]hit, len(passages))
	lens := make([]int, len(passages))
	df := make([]int, m)
	seen := make([]int, m)
	total := 0
	for i, p := range passages {
		if i%32 == 31 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		lens[i] = s.scan(p)
		total += lens[i]
		hits[i] = append([]hit(nil), s.hits...)
		for _, h := range hits[i] {
			if seen[h.term] != i+1 {
				seen[h.term] = i + 1
				df[h.term]++
			}
		}
	}
	n := len(passages)
	if l.Stats != nil {
		cdf, docs, err := l.Stats.DocFreqs(ctx, surface)
		if err != nil {
			return nil, err
		}
		if len(cdf) == m && docs > 0 {
			df, n = cdf, docs
		}
	}
	idf := make([]float64, m)
	bound := 0.0
	for j := range idf {
		d := float64(min(df[j], n))
		idf[j] = bm25.IDF(d, float64(n))
		bound += (idf[j] + min(1, idf[j])) * bm25.MaxTF
	}
	avgdl := float64(total) / float64(len(passages))
	tf := make([]float64, m)
	acc := make([]float64, m)
	for i, hs := range hits {
		if len(hs) == 0 || bound == 0 {
			continue
		}
		clear(tf)
		clear(acc)
		for a, h := range hs {
			tf[h.term]++
			for _, o := range hs[a+1:] {
				d := float64(o.pos - h.pos)
				if d > lexWindow {
					break
				}
				if o.term != h.term {
					w := 1 / (d * d)
					acc[h.term] += idf[o.term] * w
					acc[o.term] += idf[h.term] * w
				}
			}
		}
		dl, avg := float64(lens[i]), max(avgdl, 1)
		score := 0.0
		for j := range tf {
			score += idf[j]*bm25.TF(tf[j], dl, avg) + min(1, idf[j])*bm25.TF(acc[j], dl, avg)
		}
		scores[i] = model.ClampScore(score / bound)
	}
	return scores, nil
}
