package rank

import (
	"context"
	"errors"
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
	texts := map[string]string{
		"a": "the cron schedule runs nightly",
		"b": "a cron expression with a time zone and a schedule",
		"c": "unrelated words",
	}
	read := func(_ context.Context, ids []string) (map[string]string, error) {
		out := map[string]string{}
		for _, id := range ids {
			if s, ok := texts[id]; ok {
				out[id] = s
			}
		}
		return out, nil
	}
	terms := []string{"cron", "expression", "time", "zone", "schedule", "cron"}
	hits := []TextHit{{ID: "a", Terms: terms}, {ID: "gone", Terms: terms}, {ID: "b", Terms: terms}, {ID: "c", Terms: terms}}
	p := Passages{Matcher: wordMatcher{}}
	ev, err := p.Evidence(context.Background(), hits, read)
	if err != nil {
		t.Fatal(err)
	}
	// Five distinct terms; "b", the third hit, holds all five ("c", the
	// fourth, is not read).
	if ev != (Evidence{Terms: 5, Matched: 5}) {
		t.Fatalf("evidence %+v", ev)
	}
	ev, _ = p.Evidence(context.Background(), hits[:1], read)
	if ev != (Evidence{Terms: 5, Matched: 2}) {
		t.Fatalf("first hit only: %+v", ev)
	}
	if ev, _ := (Passages{}).Evidence(context.Background(), hits, read); ev != (Evidence{}) {
		t.Fatalf("no matcher: %+v", ev)
	}
	boom := errors.New("store down")
	if _, err := p.Evidence(context.Background(), hits, func(context.Context, []string) (map[string]string, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
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
