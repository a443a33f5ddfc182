package knowledge

import (
	"strings"

	"github.com/contextd/contextd/index/query"
	"github.com/contextd/contextd/index/token"
)

// Keyword search follows requirements I.5 (upstream C1): the query is
// read as PostgreSQL's websearch_to_tsquery reads it, and run against two
// token streams of every chunk, as upstream's
// websearch_to_tsquery('simple', q) || websearch_to_tsquery('english', q)
// over setweight(simple, 'A') || setweight(english, 'B'):
//
//   - the exact stream: every folded token (index/token, as the context
//     tools' full text), nothing dropped;
//   - the English stream: Snowball English stems of the tokens that are
//     not PostgreSQL English stop words.
//
// A chunk matches when either stream's query holds. Where upstream
// would find nothing because no chunk holds every word (a question typed
// into Keyword mode: "how do I keep my sourdough alive"), the words are
// OR-ed instead, negations still excluding; BM25 then ranks the chunks
// holding more of them first. Strictly, that gave 0.250 P@3 on the
// golden set's 22 queries in Keyword mode, against 0.977 OR-ed; the
// fallback keeps upstream's answer whenever upstream has one. The
// grammar is query.Websearch's (index/query, words AND-ed, "phrases", or,
// -negation); a phrase's tokens must be adjacent and in order, and a word
// that splits into several tokens, such as fmt.Println, is a phrase too.
// Other punctuation only separates words, so no input is a syntax error,
// and a query without a word matches nothing.

// kwPhrase is a sequence of adjacent terms; neg: the chunk must not hold
// it. In the English stream an empty term is a stop word's position,
// which any token fills (PostgreSQL's <N> distance).
type kwPhrase struct {
	terms []string
	ids   []uint32 // the terms' vocabulary ids (resolve)
	neg   bool
}

// kwQuery is one stream's query: an OR of groups, each an AND of
// phrases. No groups: it matches nothing.
type kwQuery [][]kwPhrase

// keywordQuery is a parsed Keyword query, both streams.
type keywordQuery struct {
	exact, stemmed kwQuery
}

// parseKeyword reads q with websearch_to_tsquery's grammar (index/query)
// and analyses each item into both streams.
func parseKeyword(q string) keywordQuery {
	groups := query.Websearch(q)
	var kq keywordQuery
	for _, g := range groups {
		var ex, st []kwPhrase
		for _, it := range g {
			var toks []string
			token.Scan(it.Text, nil, func(_, _ int, term []byte) { toks = append(toks, string(term)) })
			if len(toks) == 0 {
				continue
			}
			ex = append(ex, kwPhrase{terms: toks, neg: it.Neg})
			stems := make([]string, len(toks))
			for k, t := range toks {
				if !englishStop[t] {
					stems[k] = token.Stem(t)
				}
			}
			// Leading and trailing stop words constrain nothing.
			for len(stems) > 0 && stems[0] == "" {
				stems = stems[1:]
			}
			for len(stems) > 0 && stems[len(stems)-1] == "" {
				stems = stems[:len(stems)-1]
			}
			if len(stems) > 0 {
				st = append(st, kwPhrase{terms: stems, neg: it.Neg})
			}
		}
		if len(ex) > 0 {
			kq.exact = append(kq.exact, ex)
		}
		if len(st) > 0 {
			kq.stemmed = append(kq.stemmed, st)
		}
	}
	return kq
}

// resolve looks q's terms up in v; it must run before matches.
func (q kwQuery) resolve(v *vocab) {
	for _, g := range q {
		for k := range g {
			p := &g[k]
			p.ids = make([]uint32, len(p.terms))
			for j, t := range p.terms {
				p.ids[j] = noTerm
				if t != "" {
					p.ids[j] = v.lookup(t)
				}
			}
		}
	}
}

// ids are the resolved ids of every phrase of q.
func (q kwQuery) ids() []uint32 {
	var out []uint32
	for _, g := range q {
		for _, p := range g {
			out = append(out, p.ids...)
		}
	}
	return out
}

// positives are the distinct terms of q's non-negated phrases, the terms
// a score counts.
func (q kwQuery) positives() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range q {
		for _, p := range g {
			if p.neg {
				continue
			}
			for _, t := range p.terms {
				if t != "" && !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// matches reports whether chunk c satisfies q (resolved) in stream st.
// relaxed OR-s q's items instead: any positive phrase of any group, and
// none of the negations (the fallback of keywordLeg).
func (q kwQuery) matches(c *indexedChunk, st *kwStream, relaxed bool, seq *chunkSeq) bool {
	if relaxed {
		hit := false
		for _, g := range q {
			for _, p := range g {
				if !p.neg && !hit && p.has(c, st, seq) {
					hit = true
				}
			}
		}
		if !hit {
			return false
		}
		for _, g := range q {
			for _, p := range g {
				if p.neg && p.has(c, st, seq) {
					return false
				}
			}
		}
		return true
	}
	for _, g := range q {
		ok := true
		for _, p := range g {
			if p.has(c, st, seq) == p.neg {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// has reports whether chunk c holds the phrase: every term in stream st,
// and, for more than one term, the sequence in the chunk's tokens.
func (p kwPhrase) has(c *indexedChunk, st *kwStream, seq *chunkSeq) bool {
	for j, t := range p.terms {
		if t != "" && st.count(c, p.ids[j]) == 0 {
			return false
		}
	}
	if len(p.terms) == 1 {
		return true
	}
	toks := seq.tokens(st.stemmed)
	for i := 0; i+len(p.terms) <= len(toks); i++ {
		ok := true
		for k, t := range p.terms {
			if t != "" && toks[i+k] != t {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// chunkSeq is a candidate's token sequence in either stream, read from
// its text the first time a phrase needs it (texts.of: for a span, from
// the entry text the search read). A text not at hand gives no tokens,
// so no phrase of more than one term matches.
type chunkSeq struct {
	cand           *candidate
	i              int32 // cand's index in texts.cands
	texts          *chunkTexts
	exact, stemmed []string
	done           [2]bool
}

func (s *chunkSeq) tokens(stemmed bool) []string {
	k := 0
	if stemmed {
		k = 1
	}
	if !s.done[k] {
		s.done[k] = true
		text, _ := s.texts.of(s.cand, s.i)
		var out []string
		token.Scan(text, nil, func(_, _ int, term []byte) {
			t := string(term)
			if stemmed {
				// A stop word holds its position but no lexeme: it
				// fills a query's stop-word gap and matches no term.
				if englishStop[t] {
					t = "\x00"
				} else {
					t = token.Stem(t)
				}
			}
			out = append(out, t)
		})
		if stemmed {
			s.stemmed = out
		} else {
			s.exact = out
		}
	}
	if stemmed {
		return s.stemmed
	}
	return s.exact
}

// englishStop is PostgreSQL's English stop-word list
// (tsearch_data/english.stop, Snowball's), which the English stream
// drops.
var englishStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their theirs themselves what which
		who whom this that these those am is are was were be been being have has had having do does did
		doing a an the and but if or because as until while of at by for with about against between into
		through during before after above below to from up down in out on off over under again further
		then once here there when where why how all any both each few more most other some such no nor
		not only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()
