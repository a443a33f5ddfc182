// Package bm25 is the Okapi BM25 term weight, the one formula behind
// every lexical score contextd computes itself (the native backends
// score with FTS5's bm25() and ts_rank): the full-text index's BM25 stage
// and pruning bounds (index), knowledge Keyword search
// (internal/knowledge) and the built-in reranker (model/builtin). It is
// a leaf package so that model/builtin need not link the full-text index.
//
// As Lucene and Elasticsearch define it, a term's weight is IDF · TF:
//
//	weight(t, d) = idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
//	idf(t)       = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// with raw term frequency tf, the document's length dl in tokens, the
// average length avgdl and the document count N of the collection the
// statistics are counted over.
package bm25

import "math"

// K1 and B are the textbook (Robertson/Sparck Jones) defaults, also
// Lucene's and Elasticsearch's. A sweep of k1 and b on Cranfield found no
// setting that carried from one half of the queries to the other (README,
// "Reranking").
const (
	K1 = 1.2
	B  = 0.75
)

// IDF is the inverse document frequency of a term held by df of n
// documents.
func IDF(df, n float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// TF is the saturated term frequency: tf · (k1 + 1) / (tf + k1 · (1 − b +
// b · docLen / avgLen)), 0 for tf 0 and below k1 + 1 however large tf
// grows.
func TF(tf, docLen, avgLen float64) float64 {
	if tf <= 0 {
		return 0
	}
	return tf * (K1 + 1) / (tf + K1*(1-B+B*docLen/avgLen))
}

// MaxTF is the bound of TF, k1 + 1: times its idf, the most one term can
// add to a document's score.
const MaxTF = K1 + 1
