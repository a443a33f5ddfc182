package builtin

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/model"
)

// DefaultBlendWeight is the share of [Blend]'s score that comes from
// embedding similarity when Weight is zero. Chosen on the odd-numbered
// Cranfield queries and the paraphrase development split (odd ids); the
// even halves only verify. Hybrid search reranked, Cranfield odd nDCG@10
// / paraphrase development top-5, embedder v2: w = 0.2 0.391 / 0.20, 0.3
// 0.390 / 0.23, 0.4 0.385 / 0.23, 0.5 0.372 / 0.30, 0.8 (v1) 0.306 /
// 0.37; lexical alone (v1) 0.383 / 0.07. The rule: the largest
// paraphrase figure within 0.005 of the best Cranfield one, so 0.3;
// beyond 0.5 the lexical evidence of long queries is lost.
const DefaultBlendWeight = 0.3

// Blend is the built-in default reranker (RERANKING_PROVIDER=builtin): a
// convex combination of the [Lexical] score and the cosine similarity of
// the query's and the passage's built-in embeddings,
//
//	score = (1 − w) · lexical + w · max(0, cos(embed(query), embed(passage)))
//
// so a passage that paraphrases the query (no shared word, lexical 0) is
// not pushed below every passage that happens to share a word with it.
// Both parts are in [0, 1], so the score is too. The similarity reads only
// the query and the passage, and the lexical part's statistics are those
// the engine passes for the caller's readable set: a score tells nothing
// about other entries.
//
//	r := builtin.Blend{Embedder: &builtin.Embedder{}}
//	scores, err := r.Rerank(ctx, "database migration failed", passages)
//
// A nil Embedder leaves the lexical score alone; Weight 0 means
// DefaultBlendWeight. The value is safe for concurrent use.
type Blend struct {
	Lexical  Lexical
	Embedder *Embedder
	// Weight is w above, in (0, 1]; 0 means DefaultBlendWeight.
	Weight float64
}

// Blend is a reranker for the engine's reranking seam.
var _ model.Reranker = Blend{}

// StatsReranker is a reranker that weighs terms by collection statistics
// the engine supplies per request (those of the caller's readable set).
type StatsReranker interface {
	WithStats(s DocFreqs) model.Reranker
}

var _, _ StatsReranker = Lexical{}, Blend{}

// WithStats returns b whose lexical part weighs terms by s, unless it
// already has statistics.
func (b Blend) WithStats(s DocFreqs) model.Reranker {
	if b.Lexical.Stats == nil {
		b.Lexical.Stats = s
	}
	return b
}

// WithStats returns l weighing terms by s, unless it already has
// statistics (the engine calls it with the caller's readable-set
// statistics).
func (l Lexical) WithStats(s DocFreqs) model.Reranker {
	if l.Stats == nil {
		l.Stats = s
	}
	return l
}

// Rerank returns one score in [0, 1] per passage, as described on [Blend].
func (b Blend) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	scores, err := b.Lexical.Rerank(ctx, query, passages)
	if err != nil || b.Embedder == nil || len(passages) == 0 {
		return scores, err
	}
	w := b.Weight
	if !(w > 0 && w <= 1) {
		w = DefaultBlendWeight
	}
	texts := make([]string, 0, len(passages)+1)
	vecs, err := b.Embedder.Embed(ctx, append(append(texts, query), passages...))
	if err != nil {
		return nil, fmt.Errorf("blend reranker: %w", err)
	}
	q := vecs[0]
	for i := range scores {
		var cos float32
		for k, x := range vecs[i+1] {
			cos += x * q[k]
		}
		scores[i] = model.ClampScore((1-w)*scores[i] + w*model.ClampScore(float64(cos)))
	}
	return scores, nil
}
