package knowledge

import (
	"math"
	"testing"

	"github.com/contextd/contextd/internal/rank"
)

// TestHybridWeight: a document holding every query word caps the
// semantic weight at the context tools' default; otherwise the adaptive
// weight from the base applies (1 for scattered words).
func TestHybridWeight(t *testing.T) {
	for _, c := range []struct {
		ev   rank.Evidence
		want float64
	}{
		{rank.Evidence{Terms: 4, Matched: 4}, rank.DefaultSemanticWeight},
		{rank.Evidence{Terms: 6, Matched: 5}, 0.5},
		{rank.Evidence{Terms: 6, Matched: 2}, 1},
		{rank.Evidence{}, 0.5},
	} {
		if got := hybridWeight(0.5, c.ev); got != c.want {
			t.Errorf("%+v: weight %v, want %v", c.ev, got, c.want)
		}
		if got := hybridWeight(0.05, c.ev); c.ev.Complete() && math.Abs(got-0.05) > 1e-12 {
			t.Errorf("%+v at base 0.05: weight %v, want the base", c.ev, got)
		}
	}
}
