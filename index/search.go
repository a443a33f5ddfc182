package index

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/persist"
)

// Access is the caller: its principal and groups.
type Access struct {
	Principal string
	Groups    []string
}

// Query is one fts_search_context search inside the allowed set: the
// entries Access may read (owner, public, or granted to the principal or
// one of its groups) that pass every filter. Zero filter fields do not
// filter; IDs, when non-nil, restricts to those entries (metadata filters
// evaluated by SQL).
type Query struct {
	Text      string
	Mode      string // match (default), prefix, phrase, boolean
	Access    Access
	ThreadID  string
	Source    string
	Content   string // content type
	Tags      []string
	Start     *time.Time
	End       *time.Time
	IDs       []string
	Size      int  // number of ranked hits wanted (the candidate depth)
	Highlight bool // fill Hit.Spans
	Explain   bool // fill Result.Plan
	// Matched is how many of the first hits get Hit.Matched.
	Matched int
	// TermPrefilter runs the previous prefilter, Bleve term queries over
	// the access and filter fields, instead of the catalog's bitmap: for
	// side-by-side benchmarks and as a second oracle in tests.
	TermPrefilter bool
	// GlobalStats scores with the statistics of every indexed entry (the
	// behaviour before readable-set statistics, stats.go): for
	// side-by-side benchmarks and as the leaking baseline in tests.
	GlobalStats bool
	// PoolSelection lets Bleve select the candidates the BM25 stage
	// rescores for every caller (the behaviour before exact.go): for
	// side-by-side benchmarks and as the leaking baseline in tests.
	PoolSelection bool
	// OmitKnowledge leaves out the entries of knowledge threads
	// (persist.Filter.OmitKnowledge).
	OmitKnowledge bool
}

// Hit is one ranked entry. Spans are the byte ranges of matched terms in
// the indexed text, sorted and merged.
type Hit struct {
	ID    string
	Score float64
	Spans [][2]int
	// Matched is how many of the query's distinct terms (Result.Terms)
	// the entry holds, read from the postings, for the first
	// Query.Matched hits (0 for the others and for prefix queries).
	Matched int
}

// Result is the ranked answer, best first (score DESC, id DESC).
// Degraded reports a boolean query that did not parse and ran as a match
// query.
type Result struct {
	Hits     []Hit
	Degraded bool
	Plan     string
	// Terms are the query's positive index terms (what MatchSpans marks);
	// nil for prefix queries.
	Terms []string
}

// Search ranks the allowed entries matching q by BM25: every allowed
// match is scored by the BM25 stage with the statistics of the caller's
// readable set and the best are kept (exact.go), in every mode and for
// every caller.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	var res Result
	res.Hits = []Hit{}
	b, err := ix.newBuilder(ctx)
	if err != nil {
		return res, err
	}
	defer b.close()
	if q.Size <= 0 || (q.IDs != nil && len(q.IDs) == 0) {
		_, res.Degraded = b.textQuery(q.Text, q.Mode)
		return res, nil
	}
	// The catalog and Bleve are read as one state (prefilter.go).
	ix.view.RLock()
	defer ix.view.RUnlock()
	var allowedSet *roaring.Bitmap
	if !q.TermPrefilter {
		allowedSet = ix.cat.Allowed(catalogQuery(q))
	}
	wrap := func(tq query.Query) query.Query {
		if q.TermPrefilter {
			b := bleve.NewBooleanQuery()
			b.AddMust(tq)
			b.AddFilter(allowed(q))
			return b
		}
		return &allowedQuery{ix: ix, inner: tq, allowed: allowedSet}
	}
	// Without structural filters the allowed set is the readable set the
	// statistics are counted over (stats.go).
	var readable *roaring.Bitmap
	if allowedSet != nil && q.ThreadID == "" && q.Source == "" && q.Content == "" && len(q.Tags) == 0 && q.Start == nil && q.End == nil && q.IDs == nil {
		readable = allowedSet
	}
	err = b.limitTerms(ctx, q, func() (*collStats, error) { return ix.readerStats(q.Access, q.GlobalStats, readable) })
	if err != nil {
		return res, fmt.Errorf("index: search: %w", err)
	}
	tq, degraded := b.textQuery(q.Text, q.Mode)
	res.Degraded = degraded
	if tq == nil {
		return res, nil
	}
	sr, bq, matched, err := ix.rank(ctx, q, b, tq, wrap, readable)
	if err != nil {
		return res, err
	}
	for i, h := range sr.Hits {
		hit := Hit{ID: h.ID, Score: h.Score}
		if i < len(matched) {
			hit.Matched = matched[i]
		}
		if q.Highlight {
			hit.Spans = phraseSpans(h.Locations[fieldText], b.phrases)
		}
		res.Hits = append(res.Hits, hit)
	}
	if q.Explain {
		if b, err := json.Marshal(bq); err == nil {
			res.Plan = string(b)
		}
	}
	if !b.prefix {
		res.Terms = b.terms
	}
	return res, nil
}

// MatchSpans returns the byte ranges of text whose index terms are among
// terms (sorted, merged): the highlight of a hit computed from its text,
// which costs far less for a few hits than term locations from the index
// for every match.
func (ix *Index) MatchSpans(text string, terms []string) [][2]int {
	if len(terms) == 0 {
		return nil
	}
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	var out [][2]int
	add := func(start, end int, term []byte) {
		if want[string(term)] {
			if n := len(out); n > 0 && start <= out[n-1][1] {
				out[n-1][1] = max(out[n-1][1], end)
				return
			}
			out = append(out, [2]int{start, end})
		}
	}
	if !ix.eachTerm(text, add) {
		out = out[:0]
		for _, tok := range ix.analyzer.Analyze([]byte(text)) {
			add(tok.Start, tok.End, tok.Term)
		}
	}
	return out
}

// eachTerm calls fn with each word of text (its byte range) and its index
// term, in text order, as the analyzer makes them, from the filters' memo;
// false when it cannot (the analyzer is not over package token, or its
// filters do not make one term of some word): fn may then have been
// called for some words.
func (ix *Index) eachTerm(text string, fn func(start, end int, term []byte)) bool {
	w := ix.words
	if w == nil {
		return false
	}
	ok := true
	token.Scan(text, nil, func(start, end int, word []byte) {
		if !ok {
			return
		}
		term, one := w.term(start, end, word)
		if ok = one; ok {
			fn(start, end, term)
		}
	})
	return ok
}

// allowed is the prefilter: readable AND every structural filter.
func allowed(q Query) query.Query {
	term := func(field, v string) query.Query {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		return t
	}
	readers := []query.Query{term(fieldACL, "o:"+q.Access.Principal), term(fieldACL, tokenPublic), term(fieldACL, "u:"+q.Access.Principal)}
	for _, g := range q.Access.Groups {
		readers = append(readers, term(fieldACL, "g:"+g))
	}
	parts := []query.Query{bleve.NewDisjunctionQuery(readers...)}
	if q.ThreadID != "" {
		parts = append(parts, term(fieldThread, q.ThreadID))
	}
	if q.OmitKnowledge {
		// Everything but thread "knowledge" and "knowledge/...".
		pre := bleve.NewPrefixQuery(persist.KnowledgeThreadPrefix)
		pre.SetField(fieldThread)
		not := bleve.NewBooleanQuery()
		not.AddMust(bleve.NewMatchAllQuery())
		not.AddMustNot(term(fieldThread, persist.KnowledgeThread), pre)
		parts = append(parts, not)
	}
	if q.Source != "" {
		parts = append(parts, term(fieldSource, q.Source))
	}
	if q.Content != "" {
		parts = append(parts, term(fieldCType, q.Content))
	}
	if len(q.Tags) > 0 {
		tags := make([]query.Query, len(q.Tags))
		for i, t := range q.Tags {
			tags[i] = term(fieldTags, t)
		}
		parts = append(parts, bleve.NewDisjunctionQuery(tags...))
	}
	if q.Start != nil || q.End != nil {
		var lo, hi *float64
		inc := true
		if q.Start != nil {
			// created_at >= start, at microsecond precision (stored times
			// are whole microseconds): round the bound up.
			m := q.Start.UnixMicro()
			if time.UnixMicro(m).Before(*q.Start) {
				m++
			}
			v := float64(m)
			lo = &v
		}
		if q.End != nil {
			v := float64(q.End.UnixMicro())
			hi = &v
		}
		r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &inc, &inc)
		r.SetField(fieldCreated)
		parts = append(parts, r)
	}
	if q.IDs != nil {
		parts = append(parts, bleve.NewDocIDQuery(q.IDs))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return bleve.NewConjunctionQuery(parts...)
}

// qbuilder builds the Bleve query of one search and collects its positive
// index terms and prefixes for the BM25 stage (see bm25.go, units.go).
//
// Bleve's BM25 scores sqrt(tf), multiplies each term score by a query
// weight of boost x idf (so idf counts twice), applies a coordination
// factor to disjunctions and takes the average field length as the
// term-dictionary size over the document count. Bleve's query therefore
// only says which entries match; every mode, prefix included, is ranked
// by textbook BM25 over the readable set (exact.go).
type qbuilder struct {
	ix       *Index
	terms    []string   // the positive index terms, for the BM25 stage
	prefixes [][]string // the positive prefixes, each its alternatives (units.go)
	negated  int        // depth inside the excluded side of a NOT
	prefix   bool       // the query holds a prefix term: no Terms for MatchSpans

	// The cost bound (limits.go): the terms left out, and the prefixes
	// taken with their expansions.
	dropped             map[string]bool
	prefixN, expansions int

	phrases [][]string // the positive phrases, for highlights (highlight.go)
}

func (ix *Index) newBuilder(context.Context) (*qbuilder, error) {
	return &qbuilder{ix: ix}, nil
}

func (b *qbuilder) close() {}

// analyze returns the index terms of s under the index's analyzer.
func (ix *Index) analyze(s string) []string {
	toks := ix.analyzer.Analyze([]byte(s))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, string(t.Term))
	}
	return out
}

// textQuery builds the query of a mode; nil means nothing to search for
// (no rows). Unknown modes are the caller's to reject; they run as match.
func (b *qbuilder) textQuery(text, mode string) (query.Query, bool) {
	switch mode {
	case persist.FullTextPhrase:
		return b.phrase(text), false
	case persist.FullTextPrefix:
		var parts []query.Query
		for _, t := range b.limitPrefixes(persist.PrefixTerms(text, b.ix.lang)) {
			if q := b.prefixTerm(t.Text, t.Quoted); q != nil {
				parts = append(parts, q)
			}
		}
		return conjoin(parts), false
	case persist.FullTextBoolean:
		n, err := ParseBoolean(text)
		if err != nil {
			q, _ := b.textQuery(text, persist.FullTextMatch)
			return q, true
		}
		return b.boolQuery(n), false
	default:
		var parts []query.Query
		for _, t := range persist.MatchTerms(text, b.ix.lang) {
			if b.ix.Neutral(t.Text) {
				continue
			}
			if q := b.phrase(t.Text); q != nil {
				parts = append(parts, q)
			}
		}
		return conjoin(parts), false
	}
}

func conjoin(parts []query.Query) query.Query {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	return bleve.NewConjunctionQuery(parts...)
}

// phrase matches the terms of s in order (a single term is a term query);
// nil when s holds no index terms (only stop words or punctuation).
func (b *qbuilder) phrase(s string) query.Query {
	terms := b.ix.analyze(s)
	kept := b.keptTerms(terms)
	if len(kept) == 0 {
		return nil // every term left out by the cost bound (limits.go)
	}
	if b.negated == 0 {
		b.terms = append(b.terms, kept...)
		if len(terms) > 1 {
			b.phrases = append(b.phrases, terms)
		}
	}
	switch len(terms) {
	case 0:
		return nil
	case 1:
		t := bleve.NewTermQuery(terms[0])
		t.SetField(fieldText)
		return t
	}
	p := bleve.NewMatchPhraseQuery(s)
	p.SetField(fieldText)
	return p
}

// boolQuery turns a parsed boolean query into a Bleve query. Neutral
// operands (Index.Neutral: only stop words or punctuation) are dropped
// from AND and OR, and a NOT of nothing excludes nothing.
func (b *qbuilder) boolQuery(n *BoolNode) query.Query {
	switch n.Kind {
	case NodeTerm, NodePhrase:
		if n.Prefix {
			if !b.admitPrefix(n.Text) {
				return nil // past the cost bound (limits.go)
			}
			return b.prefixTerm(n.Text, n.Kind == NodePhrase)
		}
		if b.ix.Neutral(n.Text) {
			return nil
		}
		return b.phrase(n.Text)
	case NodeAnd:
		var parts []query.Query
		for _, k := range n.Kids {
			if q := b.boolQuery(k); q != nil {
				parts = append(parts, q)
			}
		}
		return conjoin(parts)
	case NodeOr:
		var parts []query.Query
		for _, k := range n.Kids {
			if q := b.boolQuery(k); q != nil {
				parts = append(parts, q)
			}
		}
		switch len(parts) {
		case 0:
			return nil
		case 1:
			return parts[0]
		}
		return bleve.NewDisjunctionQuery(parts...)
	case NodeNot:
		keep := b.boolQuery(n.Kids[0])
		if keep == nil {
			return nil
		}
		b.negated++
		drop := b.boolQuery(n.Kids[1])
		b.negated--
		if drop == nil {
			return keep
		}
		bq := bleve.NewBooleanQuery()
		bq.AddMust(keep)
		bq.AddMustNot(drop)
		return bq
	}
	return nil
}

// spans converts term locations to sorted, merged byte ranges.
func spans(tl search.TermLocationMap) [][2]int {
	var out [][2]int
	for _, locs := range tl {
		for _, l := range locs {
			out = append(out, [2]int{int(l.Start), int(l.End)})
		}
	}
	return mergeSpans(out)
}

// Highlight returns text with <mark>…</mark> around each span. Spans that
// do not fit the text (it changed since it was indexed) are skipped.
func Highlight(text string, spans [][2]int) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s[0] < at || s[1] > len(text) || s[0] >= s[1] {
			continue
		}
		b.WriteString(text[at:s[0]])
		b.WriteString("<mark>")
		b.WriteString(text[s[0]:s[1]])
		b.WriteString("</mark>")
		at = s[1]
	}
	b.WriteString(text[at:])
	return b.String()
}

// CountReadable counts the indexed entries acc may read: the catalog holds
// exactly the indexed entries.
func (ix *Index) CountReadable(ctx context.Context, acc Access) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	ix.view.RLock()
	defer ix.view.RUnlock()
	// get_statistics' coverage: an aggregate view, without the knowledge
	// threads (persist.KnowledgeThread).
	return ix.cat.Allowed(catalogQuery(Query{Access: acc, OmitKnowledge: true})).GetCardinality(), nil
}

// countReadableTerms is CountReadable by the term prefilter (tests).
func (ix *Index) countReadableTerms(ctx context.Context, acc Access) (uint64, error) {
	bq := bleve.NewBooleanQuery()
	bq.AddMust(bleve.NewMatchAllQuery())
	bq.AddFilter(allowed(Query{Access: acc, OmitKnowledge: true}))
	sr, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, 0, 0, false))
	if err != nil {
		return 0, fmt.Errorf("index: count: %w", err)
	}
	return sr.Total, nil
}
