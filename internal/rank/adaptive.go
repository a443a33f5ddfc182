package rank

import (
	"context"
	"strings"
)

// Query-adaptive fusion: how much the convex fusion trusts each leg
// follows what the full-text leg found for this query, not a constant.
//
// A fixed semantic weight cannot serve both kinds of question. Where the
// question shares the answer's words, BM25 ranks the answer first and the
// built-in embedder's ranking only adds noise (α = 0.1 is the best fixed
// weight on Cranfield and on the code set); where it shares none, the
// full-text leg ranks whatever holds one common word of the question, and
// at α = 0.1 those hits bury the semantic leg's answer (documentation
// questions that share no content word with their answer: hybrid MRR@10
// 0.065 against semantic's 0.354; paraphrased agent memories: hybrid
// top-5 0.18 against semantic's 0.28).
//
// The evidence is how many of the query's distinct terms the best of the
// first full-text hits holds. A hit holding at least three of them, or
// at least 70 % of them, is a lexical match: the configured weight
// applies. A hit holding at most two and at most half of them (one
// common word of a long question) is no evidence: the weight goes to 1
// and the semantic leg ranks alone. Between, the weight moves linearly.
// The thresholds were chosen on the choosing halves of the four
// evaluation sets (docs/retrieval-quality.md, "Query-adaptive fusion");
// the matched count guards long questions (Cranfield's hold 10-20 terms,
// and its best BM25 hit holds about half of them), the share short ones.

// Evidence is what the full-text leg says about a query: the distinct
// terms of its full-text query and the most of them that one of its first
// hits holds. The zero value is no measurement.
type Evidence struct {
	Terms, Matched int
}

// Complete reports that one hit holds every term of the query.
func (e Evidence) Complete() bool { return e.Terms > 0 && e.Matched >= e.Terms }

// evidenceHits is how many of the first full-text hits are read for the
// evidence: the best hit is not always the one holding the most terms.
const evidenceHits = 3

// evidenceChars caps the text read of each hit, in bytes: the terms a
// whole source file holds are found in its first 64 KiB as well, and the
// matcher's cost grows with the text.
const evidenceChars = 64 << 10

// lexical is how strongly the evidence says the query matched lexically,
// in [0, 1].
func (e Evidence) lexical() float64 {
	if e.Terms <= 0 {
		return 1 // not measured: trust the configured weight
	}
	share := float64(e.Matched) / float64(e.Terms)
	return max(clamp01((share-0.5)/0.2), clamp01(float64(e.Matched-2)))
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

// AdaptiveWeight is the semantic leg's weight α for a query with the
// given evidence: base (HYBRID_SEMANTIC_WEIGHT) for a lexical match, 1
// when the full-text leg found only stray words, linear between.
func AdaptiveWeight(base float64, e Evidence) float64 {
	return 1 - (1-base)*e.lexical()
}

// Evidence measures the full-text leg's evidence from the texts of its
// first hits: the query's terms are the hits' (the in-process index's
// analysed query terms), matched by the Matcher. Without a matcher or
// terms (a native backend, a prefix query) it is the zero Evidence, and
// the configured weight applies. An entry deleted since the ranking is
// skipped.
func (p Passages) Evidence(ctx context.Context, hits []TextHit, texts Texts) (Evidence, error) {
	if p.Matcher == nil || len(hits) == 0 || len(hits[0].Terms) == 0 {
		return Evidence{}, nil
	}
	terms := distinct(hits[0].Terms)
	first := hits[:min(evidenceHits, len(hits))]
	ids := make([]string, len(first))
	for i, h := range first {
		ids[i] = h.ID
	}
	got, err := texts(ctx, ids)
	if err != nil {
		return Evidence{}, err
	}
	ev := Evidence{Terms: len(terms)}
	for _, id := range ids {
		text, ok := got[id]
		if !ok {
			continue
		}
		if len(text) > evidenceChars {
			text = text[:evidenceChars]
		}
		ev.Matched = max(ev.Matched, p.matchedTerms(text, terms))
	}
	return ev, nil
}

// matchedTerms counts the terms text holds: the distinct surface forms of
// its matches, each asked which term it is (a matched word is analysed
// alone, so the whole text is analysed once).
func (p Passages) matchedTerms(text string, terms []string) int {
	surfaces := map[string]bool{}
	for _, sp := range p.Matcher.MatchSpans(text, terms) {
		if sp[0] >= 0 && sp[0] < sp[1] && sp[1] <= len(text) {
			surfaces[strings.ToLower(text[sp[0]:sp[1]])] = true
		}
	}
	n := 0
	for _, t := range terms {
		for s := range surfaces {
			if len(p.Matcher.MatchSpans(s, []string{t})) > 0 {
				n++
				break
			}
		}
	}
	return n
}

func distinct(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// FuseAdaptive is Fuse with the convex fusion's semantic weight set by
// the query's evidence (AdaptiveWeight); RRF keeps the configured weight.
func (h Hybrid) FuseAdaptive(method string, k int, ev Evidence, text []TextHit, vec []VectorHit) ([]Candidate, FusionStats) {
	if method == FusionRRF {
		return h.Fuse(method, k, text, vec)
	}
	h.SemanticWeight = AdaptiveWeight(h.SemanticWeight, ev)
	return h.Fuse(method, k, text, vec)
}
