package index

// The cost bound of one search. A query's cost grew with its words: each
// distinct term opens one postings cursor per segment and is advanced at
// every match, a disjunction of common words (hybrid search's OR form of
// a long question) visits most of the collection, and each prefix opens
// one cursor per expansion. A 10,000-character query over 20,000 entries
// took 0.9-3 s in hybrid search and 12-35 s as 190 repetitions of the 26
// letters in prefix mode (2-core EPYC, shared). So a search scores at most
// MaxQueryTerms distinct terms: the most selective ones, those held by
// the fewest entries the caller may read (the rarest weigh the most under
// BM25, and in a conjunction they already decide the matches), and a
// word all of whose terms are left out is read as a stop word is. A
// prefix query keeps its MaxQueryTerms longest distinct prefixes (a longer
// prefix has fewer expansions) and at most MaxPrefixExpansions expansions
// in all; the first prefix is always kept whole. And a disjunction too
// common to prune (prune.go) grows its selection of the rarest terms only
// while that selection holds at most MaxCandidates entries.
//
// Selectivity is counted over the caller's readable set, as the BM25
// statistics are (stats.go): which words a search keeps never depends on
// entries the caller cannot read.

import (
	"context"
	"slices"

	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/persist"
)

// Defaults of Options.MaxQueryTerms, MaxPrefixExpansions and
// MaxCandidates. A natural question has well under 32 distinct words
// besides stop words; the expansion budget keeps one-letter prefixes
// (each thousands of terms in a large collection) to a few; the candidate
// bound only binds past 50,000 entries holding a query's rarest words.
const (
	DefaultMaxQueryTerms       = 32
	DefaultMaxPrefixExpansions = 20000
	DefaultMaxCandidates       = 50000
)

// candidateLimit is Options.MaxCandidates, the default for zero.
func (ix *Index) candidateLimit() int {
	if ix.maxCandidates > 0 {
		return ix.maxCandidates
	}
	return DefaultMaxCandidates
}

// termLimits returns the index's bounds, defaults for zero.
func (ix *Index) termLimits() (terms, expansions int) {
	terms, expansions = ix.maxTerms, ix.maxExpansions
	if terms <= 0 {
		terms = DefaultMaxQueryTerms
	}
	if expansions <= 0 {
		expansions = DefaultMaxPrefixExpansions
	}
	return terms, expansions
}

// limitTerms decides which of the query's index terms it searches: when
// text holds more than the bound's distinct terms, b.dropped holds the
// least selective ones (held by the most readable entries; ties keep the
// earlier term). A term no readable entry holds is least selective of all:
// in a disjunction it adds nothing, and a conjunction over the kept terms
// is the closest answer that still finds something.
func (b *qbuilder) limitTerms(ctx context.Context, q Query, readable func() (*collStats, error)) error {
	limit, _ := b.ix.termLimits()
	if q.Mode == persist.FullTextPrefix {
		return nil // prefixes are bounded as they are read (limitPrefixes)
	}
	var terms []string
	seen := map[string]bool{}
	for _, t := range b.ix.analyze(q.Text) {
		if !seen[t] && !b.ix.stop[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	if len(terms) <= limit {
		return nil
	}
	st, err := readable()
	if err != nil {
		return err
	}
	defer st.close()
	type termDF struct {
		term string
		df   int
	}
	dfs := make([]termDF, len(terms))
	for i, t := range terms {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		df, err := st.docFreq(ctx, t)
		if err != nil {
			return err
		}
		if df == 0 {
			df = int(^uint(0) >> 1)
		}
		dfs[i] = termDF{t, df}
	}
	slices.SortStableFunc(dfs, func(a, b termDF) int { return a.df - b.df })
	b.dropped = make(map[string]bool, len(dfs)-limit)
	for _, d := range dfs[limit:] {
		b.dropped[d.term] = true
	}
	return nil
}

// keptTerms returns the terms of terms the search keeps, and whether any
// is left (a word all of whose terms were dropped is neutral).
func (b *qbuilder) keptTerms(terms []string) []string {
	if b.dropped == nil {
		return terms
	}
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if !b.dropped[t] {
			out = append(out, t)
		}
	}
	return out
}

// limitPrefixes returns the prefix-mode words a search keeps: each
// distinct word once (a repeated prefix matches nothing more), and of
// those, longest first, the ones admitPrefix admits, in query order.
func (b *qbuilder) limitPrefixes(words []persist.QueryTerm) []persist.QueryTerm {
	var distinct []persist.QueryTerm
	seen := map[persist.QueryTerm]bool{}
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			distinct = append(distinct, w)
		}
	}
	order := make([]int, len(distinct))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return len(distinct[j].Text) - len(distinct[i].Text) })
	keep := make([]bool, len(distinct))
	for _, i := range order {
		keep[i] = b.admitPrefix(distinct[i].Text)
	}
	out := distinct[:0:0]
	for i, w := range distinct {
		if keep[i] {
			out = append(out, w)
		}
	}
	return out
}

// admitPrefix reports whether a search still takes the prefix word s:
// fewer than the bound's prefixes taken, and its expansions within what
// is left of the budget. The first prefix is always taken.
func (b *qbuilder) admitPrefix(s string) bool {
	limit, budget := b.ix.termLimits()
	if b.prefixN >= limit {
		return false
	}
	last := ""
	token.Scan(s, nil, func(_, _ int, term []byte) { last = string(term) })
	exp := b.ix.countExpansions(last, budget-b.expansions+1)
	if b.prefixN > 0 && b.expansions+exp > budget {
		return false
	}
	b.prefixN++
	b.expansions += exp
	return true
}

// countExpansions counts the index terms starting with p, at most limit
// (it stops there).
func (ix *Index) countExpansions(p string, limit int) int {
	if p == "" {
		return 0
	}
	d, err := ix.bi.FieldDictPrefix(fieldText, []byte(p))
	if err != nil {
		return 0
	}
	defer d.Close()
	n := 0
	for n < limit {
		e, err := d.Next()
		if err != nil || e == nil {
			break
		}
		n++
	}
	return n
}
