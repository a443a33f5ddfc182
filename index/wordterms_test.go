package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// matchSpansByAnalyzer is MatchSpans computed from the whole analyzer's
// token stream, as it was before the filters' memo.
func matchSpansByAnalyzer(ix *Index, text string, terms []string) [][2]int {
	var out [][2]int
	for _, tok := range ix.analyzer.Analyze([]byte(text)) {
		if !slices.Contains(terms, string(tok.Term)) {
			continue
		}
		if n := len(out); n > 0 && tok.Start <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], tok.End)
			continue
		}
		out = append(out, [2]int{tok.Start, tok.End})
	}
	return out
}

// Oracle: the filters' memo gives the analyzer's terms, so MatchSpans
// from it equals MatchSpans from the analyzer, in every FTS_LANGUAGE, with
// the memo cold, warm, and starting over on every few words.
func TestMatchSpansMatchesAnalyzer(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	texts := append([]string{"", " .. ", multilingual}, randomTexts(21, 30, 120)...)
	defer func(n int) { wordTermsMax = n }(wordTermsMax)
	for _, max := range []int{1 << 16, 5} {
		wordTermsMax = max
		for _, lang := range Languages() {
			ix, err := Open(Options{Language: lang})
			if err != nil {
				t.Fatal(err)
			}
			if ix.words == nil {
				t.Fatalf("%s: no memo of the filters", lang)
			}
			for pass := range 2 {
				for i, text := range texts {
					// The query's terms: some of the text's own.
					var terms []string
					for _, tok := range ix.analyzer.Analyze([]byte(text)) {
						if rng.IntN(4) == 0 {
							terms = append(terms, string(tok.Term))
						}
					}
					terms = append(terms, "absent")
					got, want := ix.MatchSpans(text, terms), matchSpansByAnalyzer(ix, text, terms)
					if !slices.Equal(got, want) {
						t.Fatalf("%s (memo of %d, pass %d) text %d: spans %v, the analyzer's %v", lang, max, pass, i, got, want)
					}
				}
			}
			if n := len(ix.words.terms); n > wordTermsMax {
				t.Errorf("%s: the memo holds %d words, more than its bound %d", lang, n, wordTermsMax)
			}
			_ = ix.Close()
		}
	}
}
