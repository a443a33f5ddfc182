package builtin

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The summarizer's word walks visit what the slices they replaced held:
// eachTerm the content words strings.FieldsFunc gave, in order, and
// countFields the number of strings.Fields.
func TestWordWalksMatchSlices(t *testing.T) {
	wantTerms := func(s string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r)
		}) {
			if len([]rune(w)) > 1 && !stopwords[w] {
				out = append(out, w)
			}
		}
		return out
	}
	r := rand.New(rand.NewPCG(7, 8))
	parts := []string{"The", "a", "of", "Word", "x", "42", "İstanbul", "ÉTÉ", "日本", "—", "-", " ", "\t", "\n", "\u00a0", "\u2028", ".", "it's", "ΣΊΣΥΦΟΣ", "7"}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		var got []string
		eachTerm(s, func(w string) bool { got = append(got, w); return true })
		if want := wantTerms(s); !slices.Equal(got, want) {
			t.Fatalf("%q: eachTerm %q, FieldsFunc %q", s, got, want)
		}
		if hasTerm(s) != (len(got) > 0) {
			t.Fatalf("%q: hasTerm %v with terms %q", s, hasTerm(s), got)
		}
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Fatalf("%q: countFields %d, strings.Fields %d", s, got, want)
		}
	}
}

// BenchmarkSummarizeLarge summarizes 10 MiB of sentences: B/op is the
// summarizer's allocation for the largest legal text.
func BenchmarkSummarizeLarge(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	var sb strings.Builder
	for sb.Len() < 10<<20 {
		for range 5 + r.IntN(20) {
			sb.WriteString("w")
			sb.WriteString(strings.Repeat("abcdefgh"[r.IntN(8):], 1))
			sb.WriteString(string(rune('a' + r.IntN(26))))
			sb.WriteByte(' ')
		}
		sb.WriteString("end. ")
	}
	text := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Summarizer{}).Summarize(b.Context(), "", text); err != nil {
			b.Fatal(err)
		}
	}
}
