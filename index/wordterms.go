package index

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// wordTerms remembers what the analyzer's token filters make of each
// folded word, across every text the index analyses: the entries it
// indexes (textField) and the texts whose matches a search locates
// (MatchSpans). Every FTS_LANGUAGE chain is normalizers and a stemmer, one
// word in, one term out, depending on the word alone, and the snowball
// stemmers were 75 % of the english analyzer's CPU (BenchmarkAnalyzer at
// 16 KiB of notes, 15.4 MB/s). A text field already filtered each
// distinct word of its own text once, but most words of a text were
// filtered for earlier texts too, and hybrid search ran the whole
// analyzer over the ten texts of every page to place their passages.
// With the memo the bench's hundred 1M hybrid questions, alternated call
// by call, summed 2-3 % lower, and the 100k store rate rose from 2,455
// and 2,951 entries/s to 2,927 and 3,417 (docs/benchmarks.md, 2026-12-06).
//
// The memo holds at most wordTermsMax words and starts over when full,
// so its memory is bounded (about 5 MB) and a vocabulary that drifts
// keeps its current words.
//
// Whose texts put a word in the memo is not kept, and a term is the same
// whoever asks. What a caller could time is whether a word of its own
// text was analysed lately, a stemmer call (about a microsecond) against
// calls of milliseconds; its own call then puts the word in, so a word is
// probed once, and a call of many words shows only how many were there.
type wordTerms struct {
	filters []analysis.TokenFilter
	mu      sync.RWMutex
	terms   map[string]wordTerm
}

// wordTerm is a word's term (its capacity is its length: every text
// holding the word shares it, read-only) and whether the filters made
// exactly one term of it.
type wordTerm struct {
	term []byte
	one  bool
}

// wordTermsMax bounds the memo; a variable for the tests.
var wordTermsMax = 1 << 16

// newWordTerms returns the memo of a's filters, nil when a is not a
// tokenizer over package token followed by filters (the words would not
// be package token's).
func newWordTerms(a analysis.Analyzer) *wordTerms {
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || da.CharFilters != nil || !isUnicode61(da.Tokenizer) {
		return nil
	}
	return &wordTerms{filters: da.TokenFilters, terms: map[string]wordTerm{}}
}

// term returns the term of the folded word at start:end of a text, and
// false when the filters do not make it exactly one term (word is then
// returned).
func (w *wordTerms) term(start, end int, word []byte) ([]byte, bool) {
	w.mu.RLock()
	t, ok := w.terms[string(word)]
	w.mu.RUnlock()
	if ok {
		return t.term, t.one
	}
	ts := analysis.TokenStream{{Term: append([]byte(nil), word...), Start: start, End: end, Position: 1, Type: analysis.AlphaNumeric}}
	for _, flt := range w.filters {
		ts = flt.Filter(ts)
	}
	t = wordTerm{term: word, one: len(ts) == 1}
	if t.one {
		t.term = ts[0].Term[:len(ts[0].Term):len(ts[0].Term)]
	} else {
		t.term = append([]byte(nil), word...)
	}
	w.mu.Lock()
	if len(w.terms) >= wordTermsMax {
		w.terms = make(map[string]wordTerm, wordTermsMax/4)
	}
	w.terms[string(word)] = t
	w.mu.Unlock()
	return t.term, t.one
}
