package builtin

import (
	"context"
	"fmt"
	"math"

	"github.com/contextd/contextd/model"
)

// DefaultBlendWeight is the share of [Blend]'s score that comes from
// embedding similarity when Weight is zero. Chosen on the odd-numbered
// Cranfield queries and the paraphrase development split (odd ids); the
// even halves only verify. The rule: the largest paraphrase figure
// within 0.005 of the best Cranfield one. With the built-in similarity
// alone (lexical-semantic), hybrid search reranked, Cranfield odd
// nDCG@10 / paraphrase development top-5, embedder v2: w = 0.2 0.391 /
// 0.20, 0.3 0.390 / 0.23, 0.4 0.385 / 0.23, 0.5 0.372 / 0.30, 0.8 (v1)
// 0.306 / 0.37; lexical alone (v1) 0.383 / 0.07: 0.3; beyond 0.5 the
// lexical evidence of long queries is lost. With the distilled table
// (lexical-semantic-v2) w and α were chosen together, through the engine
// (`contextd eval`, in-process, 2026-12-03); hybrid reranked Cranfield
// odd (even) nDCG@10, paraphrase development top-5 semantic / hybrid,
// all reranked:
//
//	α \ w  0.2                          0.3                          0.4
//	0.3    0.3822 (0.3955) .333/.233   0.3842 (0.3881) .367/.300   0.3801 (0.3839) .367/.367
//	0.5    0.3865 (0.3929) .267/.233   0.3885 (0.3852) .300/.300   0.3807 (0.3852) .333/.333
//	0.6    0.3959 (0.3911) .267/.200   0.3930 (0.3867) .300/.300
//	0.7    0.3943 (0.3868) .233/.200   0.3930 (0.3808) .300/.267   0.3853 (0.3757) .300/.300
//	0.8    0.3928 (0.3883) .200/.200   0.3921 (0.3777) .267/.267
//	v1     0.391                        0.3910 (0.3766) .233/.233
//
// Within 0.005 of the best odd figure (0.3959) the largest development
// figures are α = 0.6, w = 0.3's: it keeps w at 0.3 and is above v1 on
// every choosing figure (fts reranked odd 0.3948 vs 0.3947, semantic
// reranked 0.3753 vs 0.3730).
const DefaultBlendWeight = 0.3

// BlendAlpha is the built-in embedder's share of the concatenated
// similarity when [Blend] has a [Distilled] table (chosen with w, see
// DefaultBlendWeight; the embedder lab's exact-cosine choice was 0.5).
const BlendAlpha = 0.6

// BlendModel is the model name of [Blend] with a [Distilled] table, the
// default RERANKING_MODEL; "lexical-semantic" is the blend with the
// built-in embedder's similarity alone (its rerank_score values differ).
const BlendModel = "lexical-semantic-v2"

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
	// Distilled, when set, joins the similarity (model
	// lexical-semantic-v2): cos is then that of the 200-d concatenation
	// [α·built-in ; (1 − α)·distilled], α = [BlendAlpha]. It needs
	// Embedder; stored vectors are not involved.
	Distilled *Distilled
	// Weight is w above, in (0, 1]; 0 means DefaultBlendWeight.
	Weight float64
	// Alpha is α above, in (0, 1); 0 means BlendAlpha.
	Alpha float64
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
	texts := append(append(make([]string, 0, len(passages)+1), query), passages...)
	var vecs, dist [][]float32
	if b.Distilled != nil {
		vecs, dist, err = b.Distilled.embedPair(ctx, b.Embedder, texts)
	} else {
		vecs, err = b.Embedder.Embed(ctx, texts)
	}
	if err != nil {
		return nil, fmt.Errorf("blend reranker: %w", err)
	}
	for i := range scores {
		cos := b.similarity(vecs, dist, i+1)
		scores[i] = model.ClampScore((1-w)*scores[i] + w*model.ClampScore(cos))
	}
	return scores, nil
}

// similarity is the cosine of text 0 (the query) and text i: of the
// built-in vectors alone, or of the concatenations [α·g ; (1 − α)·d]
// when dist is set. Expanded, so no 200-d vector is built: with a = α²
// and c = (1 − α)², cos = (a·g₀·gᵢ + c·d₀·dᵢ) / √((a·|g₀|² + c·|d₀|²)·(a·|gᵢ|²
// + c·|dᵢ|²)); every vector is unit or zero (a text without a known word
// has a zero distilled vector), and a zero concatenation scores 0.
func (b Blend) similarity(vecs, dist [][]float32, i int) float64 {
	gg := float64(dot32(vecs[0], vecs[i]))
	if dist == nil {
		return gg
	}
	al := b.Alpha
	if !(al > 0 && al < 1) {
		al = BlendAlpha
	}
	a, c := al*al, (1-al)*(1-al)
	num := a*gg + c*float64(dot32(dist[0], dist[i]))
	n0 := a*float64(dot32(vecs[0], vecs[0])) + c*float64(dot32(dist[0], dist[0]))
	ni := a*float64(dot32(vecs[i], vecs[i])) + c*float64(dot32(dist[i], dist[i]))
	if n0 <= 0 || ni <= 0 {
		return 0
	}
	return num / math.Sqrt(n0*ni)
}

func dot32(x, y []float32) float32 {
	var s float32
	for k, v := range x {
		s += v * y[k]
	}
	return s
}
