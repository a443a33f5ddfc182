package rank

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
// the matched count guards long questions (Cranfield's hold 3-24 terms),
// the share short ones.
//
// The share weighs each term by its rarity where the leg knows its
// document frequency (knowledge search: BM25's IDF over the searched
// chunks), so a hit holding the one rare word of a question and a common
// one matches it more than a hit holding two common words: the code
// set's "SetCookie on the response writer" (SetCookie in 3 of 1,724
// chunks, response and writer in about 127) holds 2 of 3 stems in its
// answer, a share of 0.667 by count and 0.77 by rarity. The context
// tools' full-text leg reports no frequencies: their terms count alike.
//
// A lexical match by share (at least lexicalShare of the query, the
// share where lexical reaches 1) caps α: the first hits hold nearly the
// whole question, and the semantic leg mostly moves a lesser full-text
// hit past the answer. Each tool family caps at its own weight, as each
// has its own base: the context tools at MatchWeight, knowledge Hybrid at
// the context tools' default weight (docs/retrieval-quality.md, "A
// lexical match by share").

// Evidence is what the full-text leg says about a query: the distinct
// terms of its full-text query and the most of them that one of its first
// hits holds; where the leg knows the terms' rarity, Rarity is the sum of
// the terms' weights (their IDF) and MatchedRarity the most of it one of
// those hits holds. The zero value is no measurement; a zero Rarity
// counts the terms alike.
type Evidence struct {
	Terms, Matched        int
	Rarity, MatchedRarity float64
}

// Complete reports that one hit holds every term of the query.
func (e Evidence) Complete() bool { return e.Terms > 0 && e.Matched >= e.Terms }

// share is the part of the query one of the first hits holds, by rarity
// where known, else by count.
func (e Evidence) share() float64 {
	if e.Rarity > 0 {
		return e.MatchedRarity / e.Rarity
	}
	return float64(e.Matched) / float64(e.Terms)
}

// lexicalShare is the share of the query's terms from which a hit is a
// lexical match by share; lexical rises from 0 at 0.5 to 1 there.
const lexicalShare = 0.7

// Match reports a lexical match by share: one of the first hits holds at
// least lexicalShare of the query (1e-9 below, so 7 of 10 terms count).
func (e Evidence) Match() bool { return e.Terms > 0 && e.share() >= lexicalShare-1e-9 }

// MatchWeight is the context tools' cap of α on a lexical match by share
// (Evidence.Match). Chosen on Cranfield's odd (choosing) half, in-process
// hybrid nDCG@10, among caps 0 / 0.02 / 0.04 / 0.05 / 0.06 / 0.08 / 0.1
// (none): 0.3781 / 0.3813 / 0.3813 / 0.3813 / 0.3839 / 0.3831 / 0.3816;
// the code and documentation sets' choosing halves are the same from
// 0.02 to 0.1, and the paraphrase set is unchanged at 0.06. Native
// backends measure no evidence, so the cap never applies there.
const MatchWeight = 0.06

// EvidenceHits is how many of the first full-text hits the evidence
// reads: the best hit is not always the one holding the most terms.
const EvidenceHits = 3

// lexical is how strongly the evidence says the query matched lexically,
// in [0, 1].
func (e Evidence) lexical() float64 {
	if e.Terms <= 0 {
		return 1 // not measured: trust the configured weight
	}
	return max(clamp01((e.share()-0.5)/(lexicalShare-0.5)), clamp01(float64(e.Matched-2)))
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

// AdaptiveWeight is the semantic leg's weight α for a query with the
// given evidence: base (HYBRID_SEMANTIC_WEIGHT) for a lexical match, 1
// when the full-text leg found only stray words, linear between, and at
// most matchCap for a lexical match by share (Evidence.Match).
func AdaptiveWeight(base, matchCap float64, e Evidence) float64 {
	a := 1 - (1-base)*e.lexical()
	if e.Match() {
		a = min(a, matchCap)
	}
	return a
}

// EvidenceOf measures the full-text leg's evidence from its first
// EvidenceHits hits: the query's distinct terms are the hits' Terms (the
// in-process index's analysed query terms), and each hit's Matched is how
// many of them its entry holds, which the index counts from its postings
// (index.Hit.Matched). It read the hits' texts from SQL and analysed them
// before: at 1M entries that was 0.17-0.36 ms of a hybrid call's serial
// tail, after both legs (a CPU profile of the bench's questions,
// 2026-12-06), and a database round trip on PostgreSQL. Without terms (a
// native backend, a prefix query) it is the zero Evidence, and the
// configured weight applies.
func EvidenceOf(hits []TextHit) Evidence {
	if len(hits) == 0 || len(hits[0].Terms) == 0 {
		return Evidence{}
	}
	ev := Evidence{Terms: len(distinct(hits[0].Terms))}
	for _, h := range hits[:min(EvidenceHits, len(hits))] {
		ev.Matched = max(ev.Matched, h.Matched)
	}
	return ev
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
	h.SemanticWeight = AdaptiveWeight(h.SemanticWeight, MatchWeight, ev)
	return h.Fuse(method, k, text, vec)
}
