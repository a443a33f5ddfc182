// Package rerank owns passage selection for second-stage reranking
// (requirement R-371): what text a reranker sees for each candidate. The
// rerankers themselves are models and live under model/ (the lexical one
// in model/builtin, the text-embeddings-inference client in model/tei);
// what to do with their scores -- ordering the 100-candidate window by
// rerank_score, keeping the original scores, falling back to the original
// order on error -- is the engine's job.
//
//   - [FTSPassage] cuts windows of FTS_RERANK_WINDOW_SIZE code points
//     around the <mark> spans of a full-text hit, merging spans closer than
//     FTS_RERANK_GAP_MERGE.
//   - [ChunkPassage] takes the best-matching chunk of a semantic hit by its
//     code-point offsets.
//   - [Truncate] is the fallback, the first
//     RERANKING_MAX_LENGTH·RERANKING_CHARS_PER_TOKEN·0.95 code points.
//
// All text offsets are Unicode code points, never bytes.
//
//	maxChars := int(512 * 4 * 0.95)
//	passages := []string{
//		rerank.FTSPassage(hit.Highlighted, 750, 100, maxChars), // FTS leg
//		rerank.ChunkPassage(doc.Text, chunk.Start, chunk.End, maxChars), // semantic leg
//	}
//	scores, err := reranker.Rerank(ctx, query, passages)
package rerank
