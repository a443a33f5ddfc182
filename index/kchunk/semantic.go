package kchunk

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/contextd/contextd/cerrors"
)

// semantic is the Semantic strategy (B3): sentences are embedded with one
// neighbour on each side (a 3-sentence window, SemanticBufferSize 1) in one
// batch, and a chunk ends after sentence i when the cosine distance to the
// next window exceeds the 95th percentile of all adjacent distances (with
// fewer than 5 distances: exceeds 0.5). A group over MaxTokens is cut by
// the Recursive strategy; a group under MinTokens is merged into its
// neighbour when the result fits. Each chunk is the source slice of its
// sentences (upstream joins them with spaces; slicing keeps the offsets
// exact and the text as written), and a chunk that is one whole group
// carries the mean of its windows' embeddings, so ingestion need not embed
// it again.
func (c *chunker) semantic() ([]Chunk, error) {
	sents := sentences(c.text)
	if len(sents) == 0 {
		return nil, nil
	}
	if len(sents) == 1 {
		spans, err := c.split(sents[0], RecursiveSeparators, c.r.max)
		if err != nil {
			return nil, err
		}
		return c.chunks(spans, ""), nil
	}
	windows := make([]string, len(sents))
	for i := range sents {
		lo, hi := max(0, i-1), min(len(sents)-1, i+1)
		parts := make([]string, 0, 3)
		for j := lo; j <= hi; j++ {
			parts = append(parts, c.text[sents[j].start:sents[j].end])
		}
		windows[i] = strings.Join(parts, " ")
	}
	vecs, err := c.r.embed(c.ctx, windows)
	if err != nil {
		return nil, fmt.Errorf("semantic chunking: %w", err)
	}
	if len(vecs) != len(windows) {
		return nil, fmt.Errorf("%w: semantic chunking: embedder returned %d vectors for %d sentences", cerrors.ErrUnavailable, len(vecs), len(windows))
	}
	dims := len(vecs[0])
	for _, v := range vecs {
		if len(v) != dims || dims == 0 {
			return nil, fmt.Errorf("%w: semantic chunking: embedder returned vectors of different sizes", cerrors.ErrUnavailable)
		}
	}
	dist := make([]float64, len(vecs)-1)
	for i := range dist {
		dist[i] = 1 - cosine(vecs[i], vecs[i+1])
	}
	threshold := semanticFallback
	if len(dist) >= 5 {
		threshold = percentile(dist, semanticBreakPercentile)
	}
	type group struct {
		s     span
		first int
		last  int
	}
	var groups []group
	first := 0
	for i := range sents {
		if i == len(sents)-1 || dist[i] > threshold {
			groups = append(groups, group{s: span{sents[first].start, sents[i].end}, first: first, last: i})
			first = i + 1
		}
	}
	// Merge-forward of small groups (B3 step 8), only when the result fits.
	var kept []group
	for i := 0; i < len(groups); i++ {
		g := groups[i]
		if c.tokens(g.s) >= c.r.min {
			kept = append(kept, g)
			continue
		}
		if n := len(kept); n > 0 && c.tokens(span{kept[n-1].s.start, g.s.end}) <= c.r.max {
			kept[n-1].s.end, kept[n-1].last = g.s.end, g.last
			continue
		}
		if i+1 < len(groups) && c.tokens(span{g.s.start, groups[i+1].s.end}) <= c.r.max {
			groups[i+1].s.start, groups[i+1].first = g.s.start, g.first
			continue
		}
		kept = append(kept, g)
	}
	var out []Chunk
	for _, g := range kept {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		if c.tokens(g.s) > c.r.max {
			spans, err := c.split(g.s, RecursiveSeparators, c.r.max)
			if err != nil {
				return nil, err
			}
			out = append(out, c.chunks(spans, "")...)
			continue
		}
		ch := c.chunks([]span{g.s}, "")[0]
		ch.Embedding = mean(vecs[g.first : g.last+1])
		out = append(out, ch)
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// percentile of xs with linear interpolation between closest ranks
// (rank = p/100·(m−1)); p ≤ 0 is the minimum, p ≥ 100 the maximum.
func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	switch {
	case p <= 0:
		return s[0]
	case p >= 100:
		return s[len(s)-1]
	}
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (rank-float64(lo))*(s[hi]-s[lo])
}

func mean(vs [][]float32) []float32 {
	out := make([]float32, len(vs[0]))
	for _, v := range vs {
		for i, x := range v {
			out[i] += x
		}
	}
	for i := range out {
		out[i] /= float32(len(vs))
	}
	return out
}
