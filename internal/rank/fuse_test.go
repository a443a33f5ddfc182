package rank

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestHybridDefaults(t *testing.T) {
	h := Hybrid{}.WithDefaults()
	if h != (Hybrid{RRFK: 60, Overfetch: 2, ORThreshold: 4, SemanticWeight: DefaultSemanticWeight, Fusion: FusionConvex}) {
		t.Fatalf("defaults %+v", h)
	}
	if h.LegDepth() != 200 {
		t.Fatalf("leg depth %d, want 200", h.LegDepth())
	}
	set := Hybrid{RRFK: 1, Overfetch: 10, ORThreshold: 20, SemanticWeight: 1, Fusion: FusionRRF}
	if got := set.WithDefaults(); got != set {
		t.Fatalf("set fields changed: %+v", got)
	}
	if got := (Hybrid{RRFK: -1, Overfetch: -1, ORThreshold: -1, SemanticWeight: 1.5, Fusion: "weighted"}).WithDefaults(); got != h {
		t.Fatalf("negative fields: %+v", got)
	}
}

// TestFuseWeighted: the semantic leg's terms are scaled, a full-text-only
// candidate scores as in plain RRF (T-059), and weight 1 is Fuse.
func TestFuseWeighted(t *testing.T) {
	text := []TextHit{{ID: "a"}, {ID: "b"}}
	vec := []VectorHit{{ID: "c"}, {ID: "a"}}
	got, fs := FuseWeighted(60, 0.5, text, vec)
	want := map[string]float64{"a": 1.0/61 + 0.5/62, "b": 1.0 / 62, "c": 0.5 / 61}
	if len(got) != 3 || fs.DocumentsInBoth != 1 {
		t.Fatalf("fused %+v stats %+v", got, fs)
	}
	for _, c := range got {
		if math.Abs(c.RRF-want[c.ID]) > 1e-15 {
			t.Errorf("%s: rrf %v, want %v", c.ID, c.RRF, want[c.ID])
		}
	}
	// b (text rank 2) now outranks c (semantic rank 1).
	if ids := fmt.Sprint(IDs(got)); ids != "[a b c]" {
		t.Fatalf("order %s, want [a b c]", ids)
	}
	plain, _ := Fuse(60, text, vec)
	one, _ := FuseWeighted(60, 1, text, vec)
	if fmt.Sprint(plain) != fmt.Sprint(one) {
		t.Fatalf("weight 1 %v differs from Fuse %v", one, plain)
	}
}

func TestAdaptiveQuery(t *testing.T) {
	for _, tc := range []struct {
		q, query, mode string
		significant    int
	}{
		// Fewer significant tokens than the threshold: the raw query in
		// match mode; one-character tokens do not count.
		{"alpha beta", "alpha beta", persist.FullTextMatch, 2},
		{"a b c d alpha", "a b c d alpha", persist.FullTextMatch, 1},
		{"alpha beta gamma", "alpha beta gamma", persist.FullTextMatch, 3},
		// At the threshold: the OR of the quoted terms.
		{"alpha beta gamma delta", `"alpha" OR "beta" OR "gamma" OR "delta"`, persist.FullTextBoolean, 4},
		// Quoted phrases stay phrases; parentheses and inner quotes become
		// spaces; hyphenated pieces are quoted whole.
		{`"boundary layer" heat-transfer (flow) x wing`, `"boundary layer" OR "heat-transfer" OR "flow" OR "wing"`, persist.FullTextBoolean, 4},
		// Punctuation-only tokens count but add no term; "" does not count.
		{`() (( )) "" ab`, `"ab"`, persist.FullTextBoolean, 4},
		{`() "" x ab`, `() "" x ab`, persist.FullTextMatch, 2},
		{"", "", persist.FullTextMatch, 0},
	} {
		query, mode, n := AdaptiveQuery(tc.q, 4)
		if query != tc.query || mode != tc.mode || n != tc.significant {
			t.Errorf("AdaptiveQuery(%q) = %q, %q, %d; want %q, %q, %d", tc.q, query, mode, n, tc.query, tc.mode, tc.significant)
		}
	}
}

func TestFuse(t *testing.T) {
	text := []TextHit{{ID: "a", Score: 3}, {ID: "b", Score: 2}, {ID: "a", Score: 1}, {ID: "c", Score: 0.5}}
	vec := []VectorHit{{ID: "c", Distance: 0.1}, {ID: "d", Distance: 0.2}, {ID: "a", Distance: 0.3}}
	got, fs := Fuse(60, text, vec)
	want := FusionStats{RRFK: 60, TotalUniqueDocuments: 4, DocumentsInBoth: 2, DocumentsFTSOnly: 1, DocumentsSemanticOnly: 1}
	if fs != want {
		t.Fatalf("stats %+v, want %+v", fs, want)
	}
	rrf := func(ranks ...int) float64 {
		s := 0.0
		for _, r := range ranks {
			s += 1 / float64(60+r)
		}
		return s
	}
	// a: fts 1 (its repeat at 3 is ignored), semantic 3; c: fts 4,
	// semantic 1; b: fts 2; d: semantic 2. b and d tie: id ASC.
	wantOrder := []struct {
		id     string
		rrf    float64
		tr, vr int
	}{
		{"a", rrf(1, 3), 1, 3},
		{"c", rrf(4, 1), 4, 1},
		{"b", rrf(2), 2, 0},
		{"d", rrf(2), 0, 2},
	}
	if len(got) != len(wantOrder) {
		t.Fatalf("%d candidates, want %d", len(got), len(wantOrder))
	}
	for i, w := range wantOrder {
		c := got[i]
		if c.ID != w.id || math.Abs(c.RRF-w.rrf) > 1e-15 || c.TextRank != w.tr || c.VectorRank != w.vr {
			t.Errorf("#%d = %s rrf %v ranks %d/%d, want %s rrf %v ranks %d/%d", i, c.ID, c.RRF, c.TextRank, c.VectorRank, w.id, w.rrf, w.tr, w.vr)
		}
		if (c.Text != nil) != (w.tr > 0) || (c.Vector != nil) != (w.vr > 0) {
			t.Errorf("%s: hits %v/%v", c.ID, c.Text, c.Vector)
		}
	}
	if got[0].Text != &text[0] || got[0].Vector != &vec[2] {
		t.Error("candidates must point at the legs' first hits")
	}
}

func TestFuseKeepsDepth(t *testing.T) {
	var text []TextHit
	var vec []VectorHit
	for i := range 150 {
		text = append(text, TextHit{ID: fmt.Sprintf("t%03d", i)})
		vec = append(vec, VectorHit{ID: fmt.Sprintf("v%03d", i)})
	}
	got, fs := Fuse(60, text, vec)
	if len(got) != Depth || fs.TotalUniqueDocuments != 300 {
		t.Fatalf("%d candidates of %d, want %d of 300", len(got), fs.TotalUniqueDocuments, Depth)
	}
	// Equal ranks tie: t before v, rank by rank.
	if got[0].ID != "t000" || got[1].ID != "v000" || got[99].ID != "v049" {
		t.Fatalf("order %s %s … %s", got[0].ID, got[1].ID, got[99].ID)
	}
	if empty, fs := Fuse(60, nil, nil); len(empty) != 0 || fs != (FusionStats{RRFK: 60}) {
		t.Fatalf("empty fusion: %v %+v", empty, fs)
	}
}

// TestGatherKeepsFirstRank: an id a leg returns twice is one candidate,
// with its first hit and rank in that leg, in both fusions.
func TestGatherKeepsFirstRank(t *testing.T) {
	text := []TextHit{{ID: "a", Score: 3}, {ID: "b", Score: 2}, {ID: "a", Score: 1}}
	vec := []VectorHit{{ID: "b", Distance: 0.1}, {ID: "c", Distance: 0.2}, {ID: "b", Distance: 0.9}}
	for name, fuse := range map[string]func() ([]Candidate, FusionStats){
		"weighted": func() ([]Candidate, FusionStats) { return FuseWeighted(60, 1, text, vec) },
		"convex":   func() ([]Candidate, FusionStats) { return FuseConvex(0.5, text, vec) },
	} {
		got, fs := fuse()
		if len(got) != 3 || fs.TotalUniqueDocuments != 3 || fs.DocumentsInBoth != 1 || fs.DocumentsFTSOnly != 1 || fs.DocumentsSemanticOnly != 1 {
			t.Fatalf("%s: %d candidates, stats %+v", name, len(got), fs)
		}
		for _, c := range got {
			switch c.ID {
			case "a":
				if c.TextRank != 1 || c.Text.Score != 3 {
					t.Errorf("%s: a has text rank %d score %v, want its first: 1, 3", name, c.TextRank, c.Text.Score)
				}
			case "b":
				if c.VectorRank != 1 || c.Vector.Distance != 0.1 || c.TextRank != 2 {
					t.Errorf("%s: b has vector rank %d distance %v, text rank %d; want 1, 0.1, 2", name, c.VectorRank, c.Vector.Distance, c.TextRank)
				}
			}
		}
	}
}

// TestBestMatchesSort checks best against sorting the candidates
// themselves (RRF DESC, id ASC) and cutting at Depth, over random scores
// drawn from a few values, so ties are common.
func TestBestMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, Depth, Depth + 1, 350} {
		out := make([]Candidate, n)
		for i := range out {
			out[i] = Candidate{ID: fmt.Sprintf("e%04d", r.IntN(10000)), RRF: float64(r.IntN(5)) / 4, TextRank: i}
		}
		want := slices.Clone(out)
		slices.SortFunc(want, func(a, b Candidate) int {
			return cmp.Or(cmp.Compare(b.RRF, a.RRF), strings.Compare(a.ID, b.ID))
		})
		want = want[:min(n, Depth)]
		got := best(out)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d candidates, want %d", n, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || got[i].RRF != want[i].RRF {
				t.Fatalf("n=%d: candidate %d is %s (%v), want %s (%v)", n, i, got[i].ID, got[i].RRF, want[i].ID, want[i].RRF)
			}
		}
	}
}
