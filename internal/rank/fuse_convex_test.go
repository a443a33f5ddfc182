package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFuseConvex checks the scores against the formula computed by hand:
// min-max per leg, 0 for a missing leg, (score DESC, id ASC).
func TestFuseConvex(t *testing.T) {
	text := []TextHit{{ID: "a", Score: 9}, {ID: "b", Score: 5}, {ID: "d", Score: 1}}
	// Distances 0, 1 and √2: similarities 1, 0.5 and 0.
	vec := []VectorHit{{ID: "c", Distance: 0}, {ID: "a", Distance: 1}, {ID: "e", Distance: math.Sqrt2}}
	got, fs := FuseConvex(0.25, text, vec)
	want := map[string]float64{
		"a": 0.75*1 + 0.25*0.5,
		"b": 0.75 * 0.5,
		"c": 0.25,
		"d": 0,
		"e": 0,
	}
	if fs.TotalUniqueDocuments != 5 || fs.DocumentsInBoth != 1 || fs.DocumentsFTSOnly != 2 || fs.DocumentsSemanticOnly != 2 {
		t.Fatalf("stats %+v", fs)
	}
	for _, c := range got {
		if math.Abs(c.RRF-want[c.ID]) > 1e-12 {
			t.Errorf("%s: score %v, want %v", c.ID, c.RRF, want[c.ID])
		}
	}
	// d and e tie at 0: id ASC.
	if ids := fmt.Sprint(IDs(got)); ids != "[a b c d e]" {
		t.Fatalf("order %s, want [a b c d e]", ids)
	}
	if got[0].TextRank != 1 || got[0].VectorRank != 2 || got[2].TextRank != 0 || got[2].VectorRank != 1 {
		t.Fatalf("ranks %+v", got[:3])
	}
}

// TestFuseConvexEdges: one candidate per leg scores 1 in it; an empty leg
// leaves the other's order; α 0 is the full-text order, α 1 the
// semantic one; the kept candidates are at most Depth.
func TestFuseConvexEdges(t *testing.T) {
	got, _ := FuseConvex(0.1, []TextHit{{ID: "x", Score: 3}}, []VectorHit{{ID: "y", Distance: 1.2}})
	if got[0].ID != "x" || got[0].RRF != 0.9 || got[1].RRF != 0.1 {
		t.Fatalf("single candidates %+v", got)
	}
	got, _ = FuseConvex(0.1, nil, []VectorHit{{ID: "p", Distance: 0.2}, {ID: "q", Distance: 0.9}})
	if fmt.Sprint(IDs(got)) != "[p q]" {
		t.Fatalf("semantic only %v", IDs(got))
	}
	r := rand.New(rand.NewPCG(7, 7))
	var text []TextHit
	var vec []VectorHit
	for i := range 300 {
		text = append(text, TextHit{ID: fmt.Sprintf("t%03d", i), Score: 30 - float64(i)/10})
		vec = append(vec, VectorHit{ID: fmt.Sprintf("t%03d", r.IntN(600)), Distance: 0.3 + float64(i)/300})
	}
	for _, tc := range []struct {
		alpha float64
		want  []string
	}{{0, IDs(textCandidates(text))}, {1, IDs(vectorCandidates(vec))}} {
		got, _ := FuseConvex(tc.alpha, text, vec)
		if len(got) != Depth {
			t.Fatalf("α %v: kept %d, want %d", tc.alpha, len(got), Depth)
		}
		if !slices.Equal(IDs(got), tc.want[:Depth]) {
			t.Fatalf("α %v: order differs from the leg's", tc.alpha)
		}
	}
}

func textCandidates(hs []TextHit) []Candidate {
	out := make([]Candidate, len(hs))
	for i, h := range hs {
		out[i].ID = h.ID
	}
	return out
}

// vectorCandidates is the semantic leg's order, a repeated id at its
// first rank.
func vectorCandidates(hs []VectorHit) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, h := range hs {
		if !seen[h.ID] {
			seen[h.ID] = true
			out = append(out, Candidate{ID: h.ID})
		}
	}
	return out
}

// TestHybridFuseMethod: Hybrid.Fuse dispatches on the method and reports
// k in the statistics either way.
func TestHybridFuseMethod(t *testing.T) {
	h := Hybrid{}.WithDefaults()
	text := []TextHit{{ID: "a", Score: 2}, {ID: "b", Score: 1}}
	vec := []VectorHit{{ID: "b", Distance: 0.1}}
	conv, fs := h.Fuse(FusionConvex, 7, text, vec)
	want, _ := FuseConvex(h.SemanticWeight, text, vec)
	if fs.RRFK != 7 || fmt.Sprint(conv) != fmt.Sprint(want) {
		t.Fatalf("convex %v (k %d), want %v", conv, fs.RRFK, want)
	}
	rrf, fs := h.Fuse(FusionRRF, 7, text, vec)
	want, _ = FuseWeighted(7, h.SemanticWeight, text, vec)
	if fs.RRFK != 7 || fmt.Sprint(rrf) != fmt.Sprint(want) {
		t.Fatalf("rrf %v, want %v", rrf, want)
	}
}

// BenchmarkFuse compares the two fusions over legs of n candidates each,
// half of them shared (the default leg depth is 200).
func BenchmarkFuse(b *testing.B) {
	for _, n := range []int{50, 200, 1000} {
		r := rand.New(rand.NewPCG(1, 2))
		text := make([]TextHit, n)
		vec := make([]VectorHit, n)
		for i := range n {
			text[i] = TextHit{ID: fmt.Sprintf("e%06d", r.IntN(2*n)), Score: float64(n - i)}
			vec[i] = VectorHit{ID: fmt.Sprintf("e%06d", r.IntN(2*n)), Distance: 0.5 + float64(i)/float64(n)}
		}
		b.Run(fmt.Sprintf("rrf/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				FuseWeighted(60, DefaultSemanticWeight, text, vec)
			}
		})
		b.Run(fmt.Sprintf("convex/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				FuseConvex(DefaultSemanticWeight, text, vec)
			}
		})
	}
}

// TestConvex checks the index-based fusion by hand: min-max per leg, 0 for
// a missing leg, a repeated candidate counted once per leg, semantic
// candidates first.
func TestConvex(t *testing.T) {
	sem := []Scored{{I: 4, Score: 0.9}, {I: 1, Score: 0.5}, {I: 4, Score: 0.1}}
	text := []Scored{{I: 1, Score: 8}, {I: 7, Score: 2}}
	got := Convex(0.4, sem, text)
	want := []Scored{{I: 4, Score: 0.4}, {I: 1, Score: 0.4*0.5 + 0.6}, {I: 7, Score: 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range want {
		if got[k].I != want[k].I || math.Abs(got[k].Score-want[k].Score) > 1e-12 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if got := Convex(0.5, []Scored{{I: 0, Score: -0.3}}, nil); got[0].Score != 0.5 {
		t.Fatalf("a single semantic hit scores %v, want alpha", got[0].Score)
	}
}

// TestConvexTieShare: scores of a leg closer than tieShare of its best
// are not stretched over [0, 1] (the second of two chunks scoring 0.9731
// and 0.9729 keeps almost all of its leg's weight, where plain min-max
// gave it 0 and a semantic-only candidate outranked it); a leg whose
// span is wider keeps plain min-max.
func TestConvexTieShare(t *testing.T) {
	text := []Scored{{I: 0, Score: 0.9731}, {I: 1, Score: 0.9729}}
	sem := []Scored{{I: 2, Score: 0.55}, {I: 0, Score: 0.49}, {I: 3, Score: 0.37}}
	got := map[int32]float64{}
	for _, s := range Convex(0.1, sem, text) {
		got[s.I] = s.Score
	}
	wantSecond := 0.9 * (1 - 0.0002/(tieShare*0.9731))
	if math.Abs(got[1]-wantSecond) > 1e-12 || got[1] <= got[2] {
		t.Fatalf("near-tied second %v (want %v), semantic-only best %v", got[1], wantSecond, got[2])
	}
	if want := 0.9 + 0.1*(0.49-0.37)/(0.55-0.37); math.Abs(got[0]-want) > 1e-12 {
		t.Fatalf("first %v, want %v (plain min-max on the semantic leg)", got[0], want)
	}
	// Negative best scores (similarities of far vectors) use |max|.
	for _, s := range Convex(1, []Scored{{I: 0, Score: -0.5}, {I: 1, Score: -0.501}}, nil) {
		if s.Score < 0.89 || s.Score > 1 {
			t.Fatalf("negative near-tie %+v", s)
		}
	}
}
