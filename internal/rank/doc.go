// Package rank owns what happens to the candidates of the ranked searches
// between the search legs and the page (C.4, C.8, C.9): the fixed rank
// depth and the page windows cut from it, the fusion of the full-text and
// vector legs of hybrid search (a convex combination of normalised scores
// by default, or reciprocal rank fusion) with its adaptive full-text
// query, and reranking: the passage that represents each candidate
// and the reordering by the reranker's scores.
//
// Passages: [FTSPassage] cuts windows of FTS_RERANK_WINDOW_SIZE
// code points around the <mark> spans of a full-text hit, merging spans
// closer than FTS_RERANK_GAP_MERGE; [ChunkPassage] takes the best chunk of
// a semantic hit by its code-point offsets; [Truncate] is the fallback,
// the first RERANKING_MAX_LENGTH·RERANKING_CHARS_PER_TOKEN·0.95 code
// points. The rerankers themselves are models (model/builtin, model/tei).
//
// The passage shown with each ranked result ([Passages.Locate]) is cut
// from the same evidence: the window of the entry's text holding the most
// distinct query words, inside the best chunk when that holds as many,
// with its code-point offsets and lines.
//
// It knows nothing of the engine, the store or the legs' backends: the legs'
// hits come in as [TextHit] and [VectorHit], texts are read through a
// [Texts] function, and the reranker is any [Reranker]. Loading the
// entries of a page and building the responses stay with the caller.
//
//	hc := rank.Hybrid{}.WithDefaults() // k 60, overfetch 2, OR threshold 4
//	q, mode, _ := rank.AdaptiveQuery(query, hc.ORThreshold)
//	// ... run the legs with q/mode and hc.LegDepth() ...
//	cands, stats := hc.Fuse(hc.Fusion, hc.RRFK, textHits, vectorHits)
//	rr := rank.Reranking{Reranker: reranker}
//	cands, reranked, err := rr.Rerank(ctx, query, cands, texts)
//	page := rank.Cut(cands, rank.Window{Offset: 0, Limit: 10})
package rank
