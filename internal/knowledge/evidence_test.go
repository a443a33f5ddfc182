package knowledge

import (
	"fmt"
	"math"
	"testing"

	"github.com/contextd/contextd/internal/rank"
)

// TestKeywordEvidenceRarity: the evidence weighs each stem by its rarity
// over the searched chunks. Two of three stems are no lexical match by
// count, but they are by rarity when the rare one is held, and less of
// one when only the common ones are; a document holding every stem is a
// match however common its words.
func TestKeywordEvidenceRarity(t *testing.T) {
	texts := []string{"SetCookie adds a header to the response"}
	for i := range 40 {
		texts = append(texts, fmt.Sprintf("the response writer number %d", i))
	}
	cands, total, v := limitCands(texts)
	for i := range cands {
		cands[i].doc = cands[i].path // one chunk a document
	}
	evidence := func(q string) rank.Evidence {
		return keywordEvidence(cands, mustLeg(cands, parseKeyword(q), total, v, 64), q, v, 64)
	}

	ev := evidence("SetCookie on the response writer")
	if ev.Terms != 3 || ev.Matched != 2 {
		t.Fatalf("evidence %+v, want 2 of 3 stems", ev)
	}
	if !ev.Match() || rank.AdaptiveWeight(0.5, matchWeight, ev) != matchWeight {
		t.Errorf("%+v: the rare stem held is a match (share %.2f)", ev, ev.MatchedRarity/ev.Rarity)
	}
	if (rank.Evidence{Terms: 3, Matched: 2}).Match() {
		t.Error("2 of 3 by count is a match")
	}

	ev = evidence("zebra response writer") // zebra: in no chunk
	if ev.Terms != 3 || ev.Matched != 2 || ev.Match() {
		t.Fatalf("evidence %+v, want 2 of 3 stems and no match", ev)
	}
	byCount := rank.AdaptiveWeight(0.1, matchWeight, rank.Evidence{Terms: 3, Matched: 2})
	if got := rank.AdaptiveWeight(0.1, matchWeight, ev); got <= byCount {
		t.Errorf("common stems only: weight %v, want above the count's %v", got, byCount)
	}

	ev = evidence("response writer")
	if !ev.Complete() || ev.Rarity != 0 || math.Abs(rank.AdaptiveWeight(0.5, matchWeight, ev)-matchWeight) > 1e-12 {
		t.Errorf("every stem held: %+v, weight %v", ev, rank.AdaptiveWeight(0.5, matchWeight, ev))
	}
}
