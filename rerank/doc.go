// Package rerank owns second-stage reranking (requirements C.9, R-370 to
// the rerankers that score (query, passage) pairs in [0, 1], and
// the choice of the passage that represents each candidate.
//
// It holds:
//
//   - [TEI], a client of text-embeddings-inference's POST /rerank API
//     (cross-encoders such as BAAI/bge-reranker or ms-marco-MiniLM),
//     batched by RERANKING_BATCH_SIZE.
//   - Passage selection: [FTSPassage] cuts windows of
//     FTS_RERANK_WINDOW_SIZE code points around the <mark> spans of a
//     full-text hit, merging spans closer than FTS_RERANK_GAP_MERGE;
//     [ChunkPassage] takes the best-matching chunk of a semantic hit by its
//     code-point offsets; [Truncate] is the fallback, the first
//     RERANKING_MAX_LENGTH·RERANKING_CHARS_PER_TOKEN·0.95 code points.
//
// The built-in lexical reranker lives in model/builtin. Both rerankers satisfy the engine's Reranker interface (the engine
// asserts it; this package does not import the engine). What to do with the
// scores -- ordering the 100-candidate window by rerank_score, keeping the
// original scores, falling back to the original order on error -- is the
// engine's job, not this package's. All text offsets are Unicode code
// points, never bytes.
//
//	maxChars := int(512 * 4 * 0.95)
//	passages := []string{
//		rerank.FTSPassage(hit.Highlighted, 750, 100, maxChars), // FTS leg
//		rerank.ChunkPassage(doc.Text, chunk.Start, chunk.End, maxChars), // semantic leg
//	}
//	scores, err := builtin.Lexical{}.Rerank(ctx, query, passages)
//
//	tei := &rerank.TEI{URL: "http://localhost:8080", Client: httpjson.Client{Timeout: 30 * time.Second, Attempts: 3}}
//	scores, err = tei.Rerank(ctx, query, passages)
package rerank
