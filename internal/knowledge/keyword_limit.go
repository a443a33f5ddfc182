package knowledge

import (
	"context"
	"slices"
)

// The cost bound of a Keyword query. The keyword leg has no inverted
// index: it visits every readable chunk of the container and looks each
// query term up in the chunk's counts, so its time grew with the chunks
// times the query's terms. A 10,000-character query over 20,000 chunks
// took 1.0-6.9 s (2-core EPYC, shared). So a stream searches at most
// MaxQueryTerms distinct terms (Options.MaxQueryTerms; 0 is the default):
// the most selective, held by the fewest of the candidate chunks (the
// readable ones, so nothing the caller cannot read decides which are
// kept), ties to the earlier; a phrase all of whose terms are left out is
// dropped, and a group left without a phrase with it. Counting every
// query term's chunks costs one pass over the chunks' own terms, each
// looked up among the query's, not chunks times query terms.

// DefaultMaxQueryTerms is Options.MaxQueryTerms' default, the full-text
// index's (index.DefaultMaxQueryTerms).
const DefaultMaxQueryTerms = 32

// maxTerms is Options.MaxQueryTerms, the default for zero.
func (s *Service) maxTerms() int {
	if s.opt.MaxQueryTerms > 0 {
		return s.opt.MaxQueryTerms
	}
	return DefaultMaxQueryTerms
}

// checkEvery is how many chunks a leg visits between looks at its
// context: about a millisecond of work.
const checkEvery = 1024

// bound leaves the least selective terms of q out when it holds more than
// limit distinct terms (resolved ids; an unknown term is held by no chunk
// and left out first), and returns the kept ids (nil: all), counted in
// stream st.
func (q kwQuery) bound(ctx context.Context, cands []candidate, st *kwStream, limit int) (kwQuery, map[uint32]bool, error) {
	ids := q.ids()
	order := slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if i := len(ids); i > 0 && ids[i-1] == noTerm {
		ids = ids[:i-1] // a stop word's gap or an unknown term
	}
	if len(ids) <= limit {
		return q, nil, nil
	}
	df := make([]int, len(ids))
	var seen map[uint32]bool
	for i := range cands {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		seen = st.each(cands[i].c, seen, func(id uint32) {
			if k, ok := slices.BinarySearch(ids, id); ok {
				df[k]++
			}
		})
	}
	// First occurrence breaks ties: rank the ids in query order.
	first := make(map[uint32]int, len(ids))
	for i, id := range order {
		if _, ok := first[id]; !ok {
			first[id] = i
		}
	}
	rank := make([]int, len(ids))
	for i := range rank {
		rank[i] = i
	}
	held := func(i int) int {
		if df[i] == 0 {
			return int(^uint(0) >> 1)
		}
		return df[i]
	}
	slices.SortFunc(rank, func(a, b int) int {
		if d := held(a) - held(b); d != 0 {
			return d
		}
		return first[ids[a]] - first[ids[b]]
	})
	keep := make(map[uint32]bool, limit)
	for _, i := range rank[:limit] {
		keep[ids[i]] = true
	}
	var out kwQuery
	for _, g := range q {
		var ng []kwPhrase
		for _, p := range g {
			for _, id := range p.ids {
				if keep[id] {
					ng = append(ng, p)
					break
				}
			}
		}
		if len(ng) > 0 {
			out = append(out, ng)
		}
	}
	return out, keep, nil
}
