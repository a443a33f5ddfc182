package rank

import "math"

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
	out, at, fs := gather(text, vec)
	tl := make([]Scored, len(text))
	for i, h := range text {
		tl[i] = Scored{I: at[i], Score: h.Score}
	}
	vl := make([]Scored, len(vec))
	for i, h := range vec {
		vl[i] = Scored{I: at[len(text)+i], Score: similarity(h.Distance)}
	}
	for _, f := range Convex(alpha, vl, tl) {
		out[f.I].RRF = f.Score
	}
	return best(out), fs
}

// similarity is 1 − d²/2: the cosine of unit vectors at Euclidean
// distance d.
func similarity(d float64) float64 { return 1 - d*d/2 }

// tieShare is the least span of a leg's min-max normalisation, as a
// share of its best score: scores closer than 2 % of the best are a tie
// of the leg, not a ranking. Plain min-max stretches any difference to
// the whole [0, 1]: a knowledge keyword leg that found two chunks holding
// every word of "crypto rand Read secure random bytes" (scores 0.9731 and
// 0.9729, the answer second) gave the answer 0, and one semantic-only
// chunk's 0.1 outranked it (ranked 7th, Keyword ranks it 2nd). The
// share was chosen on the choosing halves of the documentation and code
// sets (knowledge Hybrid MRR@10 on the code set's choosing half: 0 %
// 0.610, 0.5 % 0.610, 1 % 0.606, 1.5-2 % 0.614, 3-4 % 0.607, 5 % 0.607,
// 10 % 0.600, 20 % 0.595; the documentation set 0.639 up to 10 %). The
// context tools' legs are 200 deep, their spans far wider than 2 % of
// the best: no figure of theirs moved (docs/retrieval-quality.md).
const tieShare = 0.02

// Scored is a candidate of a fusion, by its index in the caller's list of
// candidates, with a score.
type Scored struct {
	I     int32
	Score float64
}

// Convex is the min-max convex fusion of two legs, the one behind
// [FuseConvex] and knowledge Hybrid search: each leg's scores are mapped
// to [0, 1] by 1 − (max − s) / span over that leg, where span is max −
// min but at least [tieShare] of |max| (1 when they are all equal, a
// single hit included), and a candidate scores
//
//	alpha · norm_sem + (1 − alpha) · norm_text
//
// where a leg that does not hold it adds 0 (its minimum's share); a
// candidate listed twice in a leg counts its first score (both legs'
// scores still set the range). The result holds every candidate of
// either leg once, semantic ones first, in their order; the fused score
// is in [0, 1] for alpha in [0, 1]. Indexes must be non-negative. It
// uses dense arrays rather than maps: at 10,000 candidates a map cost
// more than both knowledge legs together.
func Convex(alpha float64, sem, text []Scored) []Scored {
	n := int32(0)
	for _, l := range [][]Scored{sem, text} {
		for _, h := range l {
			n = max(n, h.I+1)
		}
	}
	// pos: 1-based positions in out by candidate index, 0 for none yet;
	// done: the legs (bit 1 semantic, 2 text) that have counted it.
	pos := make([]int32, n)
	done := make([]uint8, n)
	out := make([]Scored, 0, len(sem)+len(text))
	add := func(list []Scored, w float64, leg uint8) {
		if len(list) == 0 {
			return
		}
		lo, hi := list[0].Score, list[0].Score
		for _, h := range list {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		span := max(hi-lo, tieShare*math.Abs(hi))
		for _, h := range list {
			if done[h.I]&leg != 0 {
				continue
			}
			done[h.I] |= leg
			u := 1.0
			if span > 0 {
				u = 1 - (hi-h.Score)/span
			}
			if pos[h.I] == 0 {
				out = append(out, Scored{I: h.I})
				pos[h.I] = int32(len(out))
			}
			out[pos[h.I]-1].Score += w * u
		}
	}
	add(sem, alpha, 1)
	add(text, 1-alpha, 2)
	return out
}
