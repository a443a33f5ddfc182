package index

import (
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/persist"
)

// Query-side word rules shared with the native backend (NativeQuery, sent
// through internal/search), so both backends read a query alike.

// Neutral reports whether s, a word or quoted phrase of a match or boolean
// query, holds nothing to match on its own: no token, or only stop words of
// the index's language. FTS5 indexes every word and so does this index;
// a neutral operand is dropped from the query (a query of nothing but
// neutral operands finds no rows, R-093) on both backends. Phrase mode
// and prefixes are never neutral: "to be or not to be" as a phrase, or
// the*, match what they say.
func (ix *Index) Neutral(s string) bool {
	neutral := true
	token.Scan(s, nil, func(_, _ int, term []byte) {
		if neutral && !ix.stop[string(term)] {
			neutral = false
		}
	})
	return neutral
}

// prefixTerm matches s as FTS5 matches "s"*: a phrase whose last token is
// a prefix. s is a prefix-mode word (fmt.Pri is fmt followed by a term
// starting with pri) or a quoted phrase. Index terms are stemmed, so both
// the folded last token and its stem serve as prefixes: "auth" finds
// "authentication" and so does "authentication" (stem "authent").
// A quoted phrase and a word are read alike (the second argument), as FTS5
// reads "s"* alike for both.
func (b *qbuilder) prefixTerm(s string, _ bool) query.Query {
	b.prefix = true
	lastStart, lastEnd, last := -1, -1, ""
	token.Scan(s, nil, func(start, end int, term []byte) {
		lastStart, lastEnd, last = start, end, string(term)
	})
	if lastStart < 0 {
		return nil
	}
	seen := map[string]bool{}
	var alts []string
	for _, p := range append([]string{last}, b.ix.analyze(s[lastStart:lastEnd])...) {
		if p != "" && !seen[p] {
			seen[p] = true
			alts = append(alts, p)
		}
	}
	if b.negated == 0 {
		b.prefixes = append(b.prefixes, slices.Sorted(slices.Values(alts)))
	}
	lead := b.ix.analyze(s[:lastStart])
	if len(lead) == 0 {
		return prefixAlternatives(alts)
	}
	// The words and the prefix adjacent, as FTS5 requires: the prefix
	// is expanded to the index terms it starts (as Bleve's prefix query
	// does internally) and they take the phrase's last place. Expanding
	// over the whole dictionary, not the caller's readable entries, only
	// adds terms no readable entry holds: the matches are the same.
	terms, err := b.ix.expandPrefixes(alts)
	if err != nil || len(terms) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	if b.negated == 0 {
		b.terms = append(b.terms, lead...)
		b.phrases = append(b.phrases, append(slices.Clone(lead), anyTerm))
	}
	phrase := make([][]string, 0, len(lead)+1)
	for _, t := range lead {
		phrase = append(phrase, []string{t})
	}
	return query.NewMultiPhraseQuery(append(phrase, terms), fieldText)
}

func prefixAlternatives(alts []string) query.Query {
	qs := make([]query.Query, len(alts))
	for i, p := range alts {
		q := bleve.NewPrefixQuery(p)
		q.SetField(fieldText)
		qs[i] = q
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// expandPrefixes lists the index terms starting with any of prefixes.
func (ix *Index) expandPrefixes(prefixes []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range prefixes {
		d, err := ix.bi.FieldDictPrefix(fieldText, []byte(p))
		if err != nil {
			return nil, err
		}
		for {
			e, err := d.Next()
			if err != nil {
				_ = d.Close()
				return nil, err
			}
			if e == nil {
				break
			}
			if !seen[e.Term] {
				seen[e.Term] = true
				out = append(out, e.Term)
			}
		}
		_ = d.Close()
	}
	return out, nil
}

// NativeQuery rewrites a match or boolean query for a database engine
// that indexes every word and has no stop words (SQLite FTS5 unicode61),
// so that it reads the query as this index does: neutral operands (only
// stop words, see Neutral) are dropped. A boolean query this grammar
// rejects becomes the match query the in-process index runs instead. It
// returns the text and mode to send; other queries come back unchanged.
func NativeQuery(text, mode, language string, stop map[string]bool) (string, string) {
	neutral := func(s string) bool { return (&Index{stop: stop}).Neutral(s) }
	switch mode {
	case persist.FullTextMatch, "":
		terms := persist.MatchTerms(text, language)
		kept := make([]string, 0, len(terms))
		for _, t := range terms {
			if !neutral(t.Text) {
				kept = append(kept, fts5Quote(t.Text))
			}
		}
		if len(kept) == len(terms) {
			return text, mode
		}
		return strings.Join(kept, " "), persist.FullTextMatch
	case persist.FullTextBoolean:
		n, err := ParseBoolean(text)
		if err != nil {
			q, _ := NativeQuery(text, persist.FullTextMatch, language, stop)
			return q, persist.FullTextMatch
		}
		return renderFTS5(n, neutral), mode
	}
	return text, mode
}

func fts5Quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// renderFTS5 writes n in FTS5 syntax, every operand quoted and neutral
// operands dropped as boolQuery drops them; "" when nothing is left.
func renderFTS5(n *BoolNode, neutral func(string) bool) string {
	switch n.Kind {
	case NodeTerm, NodePhrase:
		if n.Prefix {
			return fts5Quote(n.Text) + "*"
		}
		if neutral(n.Text) {
			return ""
		}
		return fts5Quote(n.Text)
	case NodeAnd, NodeOr:
		op := " AND "
		if n.Kind == NodeOr {
			op = " OR "
		}
		var parts []string
		for _, k := range n.Kids {
			if s := renderFTS5(k, neutral); s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) == 1 {
			return parts[0]
		}
		if len(parts) == 0 {
			return ""
		}
		return "(" + strings.Join(parts, op) + ")"
	case NodeNot:
		keep := renderFTS5(n.Kids[0], neutral)
		if keep == "" {
			return ""
		}
		drop := renderFTS5(n.Kids[1], neutral)
		if drop == "" {
			return keep
		}
		return "(" + keep + " NOT " + drop + ")"
	}
	return ""
}
