package rank

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/index/query"
	"github.com/contextd/contextd/persist"
)

// Hybrid search (C.8): the full-text and the semantic leg each rank
// Depth·HYBRID_RRF_OVERFETCH candidates at offset 0, in parallel; the
// fusion (HYBRID_FUSION: FuseConvex by default, or FuseWeighted's RRF)
// keeps the best Depth (fused score DESC, id ASC), the reranker reorders
// them, and the page is cut from that one ordering.

// Hybrid is the fusion policy of hybrid search. Zero fields mean the
// defaults ([Hybrid.WithDefaults]).
type Hybrid struct {
	// RRFK is HYBRID_RRF_K (default 60).
	RRFK int
	// Overfetch is HYBRID_RRF_OVERFETCH (default 2): each leg fetches
	// Depth·Overfetch candidates.
	Overfetch int
	// ORThreshold is HYBRID_FTS_OR_THRESHOLD (default 4): a query with at
	// least this many significant tokens runs its full-text leg as boolean
	// OR.
	ORThreshold int
	// SemanticWeight is HYBRID_SEMANTIC_WEIGHT (default
	// DefaultSemanticWeight): the semantic leg's weight in the fusion: α
	// of FuseConvex, or the weight of its RRF terms, the full-text leg's
	// being 1 (1 is R-360's plain RRF).
	SemanticWeight float64
	// Fusion is HYBRID_FUSION: FusionConvex (default) or FusionRRF.
	Fusion string
}

// DefaultSemanticWeight weighs the semantic leg below the full-text one:
// the built-in embedder alone ranks Cranfield at nDCG@10 0.24 against
// BM25's 0.37, so an equal vote drags the fusion below BM25. Chosen on the
// odd-numbered Cranfield queries (in-process, k = 60, built-in embedder
// v2; odd / even halves): weight 1 (plain RRF) 0.334 / 0.319 (embedder
// v1), 0.5 0.370 / 0.347, 0.3 0.377 / 0.354, 0.2 0.381 / 0.360, 0.1
// 0.382 / 0.367; BM25 alone 0.372 / 0.374. The same 0.1 is α of the
// default convex fusion, chosen on the same half (FuseConvex has its
// sweep); see the README ("Semantic and hybrid search").
const DefaultSemanticWeight = 0.1

// WithDefaults fills the zero (or negative) fields of h.
func (h Hybrid) WithDefaults() Hybrid {
	if h.RRFK <= 0 {
		h.RRFK = 60
	}
	if h.Overfetch <= 0 {
		h.Overfetch = 2
	}
	if h.ORThreshold <= 0 {
		h.ORThreshold = 4
	}
	if !(h.SemanticWeight > 0) || h.SemanticWeight > 1 {
		h.SemanticWeight = DefaultSemanticWeight
	}
	if h.Fusion != FusionRRF {
		h.Fusion = FusionConvex
	}
	return h
}

// Fuse combines the legs by method (FusionRRF or FusionConvex) with the
// semantic leg weighted by h.SemanticWeight; k is RRF's constant.
func (h Hybrid) Fuse(method string, k int, text []TextHit, vec []VectorHit) ([]Candidate, FusionStats) {
	if method == FusionRRF {
		return FuseWeighted(k, h.SemanticWeight, text, vec)
	}
	out, fs := FuseConvex(h.SemanticWeight, text, vec)
	fs.RRFK = k
	return out, fs
}

// LegDepth is how many candidates each leg ranks.
func (h Hybrid) LegDepth() int { return Depth * h.Overfetch }

// AdaptiveQuery is the full-text leg's query: a query of at least
// threshold significant tokens becomes the boolean OR of its sanitized
// terms (quoted phrases kept, hyphenated pieces quoted as a phrase);
// otherwise the raw query runs in match mode.
func AdaptiveQuery(q string, threshold int) (text, mode string, significant int) {
	or, significant := orTerms(q)
	if significant < threshold || or == "" {
		return q, persist.FullTextMatch, significant
	}
	return or, persist.FullTextBoolean, significant
}

// ORQuery is the boolean OR of q's sanitized terms, the form
// AdaptiveQuery gives a long query whatever q's length; "" when q has no
// term of two or more characters.
func ORQuery(q string) string {
	or, _ := orTerms(q)
	return or
}

// orTerms is the OR of q's significant tokens (those of two or more
// characters) and how many there are.
func orTerms(q string) (or string, significant int) {
	toks, _ := query.Fields(q)
	var terms []string
	for _, t := range toks {
		inner := strings.Trim(t, `"`)
		if utf8.RuneCountInString(inner) <= 1 {
			continue
		}
		significant++
		inner = strings.Map(func(r rune) rune {
			switch r {
			case '"', '(', ')':
				return ' '
			}
			return r
		}, inner)
		if inner = strings.Join(strings.Fields(inner), " "); inner == "" {
			continue
		}
		terms = append(terms, `"`+inner+`"`)
	}
	return strings.Join(terms, " OR "), significant
}

// FusionStats describe a fusion. Its fields are those of the
// engine's fusion_stats.
type FusionStats struct {
	RRFK                  int
	TotalUniqueDocuments  int
	DocumentsInBoth       int
	DocumentsFTSOnly      int
	DocumentsSemanticOnly int
}

// Fuse combines the legs by reciprocal rank fusion: rrf(d) =
// Σ 1/(k + rank), ranks 1-based per leg (a repeated id keeps its first
// rank); the best Depth are kept (rrf DESC, id ASC). The candidates point
// into text and vec.
func Fuse(k int, text []TextHit, vec []VectorHit) ([]Candidate, FusionStats) {
	return FuseWeighted(k, 1, text, vec)
}

// FuseWeighted is Fuse with the semantic leg's terms weighted: rrf(d) =
// 1/(k + fts_rank) + semWeight/(k + semantic_rank). A full-text-only
// candidate scores exactly as in Fuse.
func FuseWeighted(k int, semWeight float64, text []TextHit, vec []VectorHit) ([]Candidate, FusionStats) {
	out, _, fs := gather(text, vec)
	fs.RRFK = k
	for i := range out {
		c := &out[i]
		if c.Text != nil {
			c.RRF += 1 / float64(k+c.TextRank)
		}
		if c.Vector != nil {
			c.RRF += semWeight / float64(k+c.VectorRank)
		}
	}
	return best(out), fs
}

// gather returns every candidate of the legs once, with its hits and
// 1-based ranks (a repeated id keeps its first rank), the place in the
// candidates of each hit (text's, then vec's: no second lookup of an id),
// and the fusion statistics but RRFK.
func gather(text []TextHit, vec []VectorHit) ([]Candidate, []int32, FusionStats) {
	pos := make(map[string]int32, len(text)+len(vec))
	out := make([]Candidate, 0, len(text)+len(vec)) // never grown: get's pointers hold
	at := make([]int32, 0, len(text)+len(vec))
	get := func(id string) *Candidate {
		i, ok := pos[id]
		if !ok {
			i = int32(len(out))
			pos[id] = i
			out = append(out, Candidate{ID: id})
		}
		at = append(at, i)
		return &out[i]
	}
	for i := range text {
		if c := get(text[i].ID); c.Text == nil {
			c.TextRank, c.Text = i+1, &text[i]
		}
	}
	for i := range vec {
		if c := get(vec[i].ID); c.Vector == nil {
			c.VectorRank, c.Vector = i+1, &vec[i]
		}
	}
	fs := FusionStats{TotalUniqueDocuments: len(out)}
	for i := range out {
		switch c := &out[i]; {
		case c.Text != nil && c.Vector != nil:
			fs.DocumentsInBoth++
		case c.Text != nil:
			fs.DocumentsFTSOnly++
		default:
			fs.DocumentsSemanticOnly++
		}
	}
	return out, at, fs
}

// best returns the first Depth candidates by fused score (RRF DESC, id
// ASC: R-333), in that order. It sorts 16-byte keys, not the 64-byte
// candidates, and reads an id only to break a tie. A fusion runs after
// both legs with nothing beside it (0.10-0.12 ms of a 1M hybrid call),
// and sorting the candidates themselves was half of it: with the keys,
// and gather handing over each hit's place instead of a second lookup of
// its id, BenchmarkFuse (convex, legs of 200) went from 60-69 to 46-49
// µs (2026-12-06).
func best(out []Candidate) []Candidate {
	type key struct {
		score float64
		i     int32
	}
	keys := make([]key, len(out))
	for i := range out {
		keys[i] = key{out[i].RRF, int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(out[a.i].ID, out[b.i].ID)
	})
	page := make([]Candidate, min(len(out), Depth))
	for j := range page {
		page[j] = out[keys[j].i]
	}
	return page
}
