package rank

import (
	"math"
	"testing"
)

func TestAdaptiveWeight(t *testing.T) {
	for _, c := range []struct {
		ev   Evidence
		want float64
	}{
		{Evidence{}, 0.1}, // not measured: the configured weight
		{Evidence{Terms: 5, Matched: 5}, MatchWeight},  // every term: a match by share
		{Evidence{Terms: 12, Matched: 3}, 0.1},         // three terms of a long question
		{Evidence{Terms: 6, Matched: 1}, 1},            // one stray word: semantic alone
		{Evidence{Terms: 4, Matched: 2}, 1},            // two of four
		{Evidence{Terms: 3, Matched: 0}, 1},            // the full-text leg found nothing
		{Evidence{Terms: 2, Matched: 2}, MatchWeight},  // both words of a short query
		{Evidence{Terms: 10, Matched: 6}, 0.1},         // 60 %, but six terms
		{Evidence{Terms: 10, Matched: 7}, MatchWeight}, // 70 %
		{Evidence{Terms: 3, Matched: 2}, 0.25},         // 2/3: (0.667-0.5)/0.2 = 0.833 lexical
		// The same two of three by rarity: the rare term held (0.8 of
		// the weight), or only the common ones (0.5).
		{Evidence{Terms: 3, Matched: 2, Rarity: 10, MatchedRarity: 8}, MatchWeight},
		{Evidence{Terms: 3, Matched: 2, Rarity: 10, MatchedRarity: 5}, 1},
	} {
		if got := AdaptiveWeight(0.1, MatchWeight, c.ev); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%+v: weight %.4f, want %.4f", c.ev, got, c.want)
		}
	}
	// The cap lowers a larger configured weight too, and never raises a
	// smaller one.
	if got := AdaptiveWeight(0.5, MatchWeight, Evidence{Terms: 6, Matched: 5}); got != MatchWeight {
		t.Errorf("base 0.5, 5 of 6: weight %v, want %v", got, MatchWeight)
	}
	if got := AdaptiveWeight(0.01, MatchWeight, Evidence{Terms: 4, Matched: 4}); math.Abs(got-0.01) > 1e-12 {
		t.Errorf("base 0.01, 4 of 4: weight %v, want the base", got)
	}
}

func TestEvidence(t *testing.T) {
	terms := []string{"cron", "expression", "time", "zone", "schedule", "cron"}
	hits := []TextHit{{ID: "a", Terms: terms, Matched: 2}, {ID: "b", Terms: terms, Matched: 1}, {ID: "c", Terms: terms, Matched: 5}, {ID: "d", Terms: terms, Matched: 4}}
	// Five distinct terms; "c", the third hit, holds all five ("d", the
	// fourth, is not read).
	if ev := EvidenceOf(hits); ev != (Evidence{Terms: 5, Matched: 5}) {
		t.Fatalf("evidence %+v", ev)
	}
	if ev := EvidenceOf(hits[:1]); ev != (Evidence{Terms: 5, Matched: 2}) {
		t.Fatalf("first hit only: %+v", ev)
	}
	hits[3].Matched = 6
	if ev := EvidenceOf(hits); ev != (Evidence{Terms: 5, Matched: 5}) {
		t.Fatalf("a fourth hit counted: %+v", ev)
	}
	// A native leg's hits and a prefix query's carry no terms.
	if ev := EvidenceOf([]TextHit{{ID: "a", Matched: 3}}); ev != (Evidence{}) {
		t.Fatalf("no terms: %+v", ev)
	}
	if ev := EvidenceOf(nil); ev != (Evidence{}) {
		t.Fatalf("no hits: %+v", ev)
	}
}

// TestEvidenceComplete: complete only when a hit holds every term of a
// measured query.
func TestEvidenceComplete(t *testing.T) {
	for _, c := range []struct {
		e    Evidence
		want bool
	}{{Evidence{}, false}, {Evidence{Terms: 3, Matched: 2}, false}, {Evidence{Terms: 3, Matched: 3}, true}, {Evidence{Terms: 1, Matched: 1}, true}} {
		if got := c.e.Complete(); got != c.want {
			t.Errorf("%+v: Complete %v, want %v", c.e, got, c.want)
		}
	}
}
