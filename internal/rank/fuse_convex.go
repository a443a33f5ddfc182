package rank

// Fusion methods of hybrid search (HYBRID_FUSION, the fusion_method
// argument).
const (
	// FusionRRF is R-360's reciprocal rank fusion, weighted by
	// HYBRID_SEMANTIC_WEIGHT ([FuseWeighted]).
	FusionRRF = "rrf"
	// FusionConvex is a convex combination of min-max normalised scores
	// ([FuseConvex]), the default.
	FusionConvex = "convex"
)

// FuseConvex combines the legs by a convex combination of their scores,
// each min-max normalised over its leg's candidates (Bruch, Gai and
// Ingber 2023, "An analysis of fusion functions for hybrid retrieval"):
//
//	score(d) = (1 − α) · norm(bm25(d)) + α · norm(sim(d))
//
// with sim = 1 − distance²/2 (the cosine of unit vectors; for others a
// decreasing function of the distance all the same) and norm(x) = (x −
// min) / (max − min) over the leg (1 when every candidate scores alike).
// A candidate absent from a leg gets that leg's 0, its minimum. The best
// Depth are kept (score DESC, id ASC); the score is in [0, 1] and is
// reported where RRF reports rrf. Ranks and fusion statistics are those
// of [FuseWeighted].
//
// Why scores and not ranks: rank fusion hears only the order, so the
// semantic leg's 10th candidate, however far from the query, weighs as
// much as a close one; the scores say how much better the first BM25
// candidates are than the rest. Measured on Cranfield through the
// engine's legs (in-process, built-in embedder v2, nDCG@10 odd / even
// half; BM25 alone 0.3724 / 0.3703): min-max α = 0.05 0.3762 / 0.3742,
// 0.10 0.3819 / 0.3740, 0.15 0.3813 / 0.3762, 0.20 0.3812 / 0.3769, 0.30
// 0.3788 / 0.3739, 0.40 0.3757 / 0.3600; weighted RRF (k 60) at its best
// odd figure, w = 0.1, 0.3835 / 0.3671, and at k 10-100, w 0.05-0.3, no
// setting whose odd figure leads carried to the even half (k 100, w 0.1:
// 0.3863 / 0.3595). Normalising by the leg's maximum alone (0.3837 /
// 0.3742 at α 0.15) and by z-scores (0.3845 / 0.3609 at α 0.4) were
// measured too; α = [DefaultSemanticWeight] (0.1) is min-max's best on
// the odd half.
func FuseConvex(alpha float64, text []TextHit, vec []VectorHit) ([]Candidate, FusionStats) {
	out, fs := gather(text, vec)
	tlo, thi := legRange(len(text), func(i int) float64 { return text[i].Score })
	vlo, vhi := legRange(len(vec), func(i int) float64 { return similarity(vec[i].Distance) })
	for i := range out {
		c := &out[i]
		if c.Text != nil {
			c.RRF += (1 - alpha) * unit(c.Text.Score, tlo, thi)
		}
		if c.Vector != nil {
			c.RRF += alpha * unit(similarity(c.Vector.Distance), vlo, vhi)
		}
	}
	return best(out), fs
}

// similarity is 1 − d²/2: the cosine of unit vectors at Euclidean
// distance d.
func similarity(d float64) float64 { return 1 - d*d/2 }

// legRange is the least and the greatest of n scores.
func legRange(n int, score func(int) float64) (lo, hi float64) {
	for i := range n {
		s := score(i)
		if i == 0 || s < lo {
			lo = s
		}
		if i == 0 || s > hi {
			hi = s
		}
	}
	return lo, hi
}

// unit maps x in [lo, hi] to [0, 1]; every score is 1 when they are all
// equal (the only candidate of a leg counts fully).
func unit(x, lo, hi float64) float64 {
	if !(hi > lo) {
		return 1
	}
	return (x - lo) / (hi - lo)
}
