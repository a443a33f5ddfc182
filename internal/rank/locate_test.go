package rank

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordMatcher marks, by byte ranges, every word of a text whose lower
// case is among the terms: the in-process index's MatchSpans without
// stemming.
type wordMatcher struct{}

func (wordMatcher) MatchSpans(text string, terms []string) [][2]int {
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	var out [][2]int
	start := -1
	for i, r := range text + " " {
		if isWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && want[strings.ToLower(text[start:i])] {
			out = append(out, [2]int{start, i})
		}
		start = -1
	}
	return out
}

// holds reports whether text holds one of terms as a word.
func holds(text string, terms []string) bool {
	return len(wordMatcher{}.MatchSpans(text, terms)) > 0
}

func checkLocated(t *testing.T, text string, got Located, maxChars int) {
	t.Helper()
	runes := []rune(strings.ToValidUTF8(text, "\uFFFD"))
	if got.Start < 0 || got.End > len(runes) || got.Start > got.End {
		t.Fatalf("span [%d, %d) outside %d code points", got.Start, got.End, len(runes))
	}
	if string(runes[got.Start:got.End]) != got.Text {
		t.Fatalf("text %q is not code points [%d, %d) of the entry", got.Text, got.Start, got.End)
	}
	if n := utf8.RuneCountInString(got.Text); n > maxChars {
		t.Fatalf("passage of %d code points, cap %d", n, maxChars)
	}
	if want := strings.Count(string(runes[:got.Start]), "\n") + 1; got.StartLine != want {
		t.Fatalf("start line %d, want %d", got.StartLine, want)
	}
	if want := got.StartLine + strings.Count(strings.TrimSuffix(got.Text, "\n"), "\n"); got.EndLine != want {
		t.Fatalf("end line %d, want %d", got.EndLine, want)
	}
}

func TestLocateFindsTheMatchPastTheHeader(t *testing.T) {
	header := strings.Repeat("// Copyright The Authors. All rights reserved.\n", 12)
	body := "package http\n\n" + strings.Repeat("func other() {}\n", 20) +
		"// Timeout specifies a time limit for requests made by this Client.\nTimeout time.Duration\n" +
		strings.Repeat("func more() {}\n", 20)
	text := header + body
	p := Passages{Matcher: wordMatcher{}}
	c := &Candidate{Text: &TextHit{ID: "a", Terms: []string{"client", "timeout"}}}
	got := p.Locate(c, text, nil, 120)
	checkLocated(t, text, got, 120)
	if !strings.Contains(got.Text, "Timeout specifies") || !strings.Contains(got.Text, "Client") {
		t.Fatalf("passage %q misses the matches", got.Text)
	}
	if got.Terms != 2 {
		t.Fatalf("terms %d, want 2", got.Terms)
	}
	if got.StartLine < 30 {
		t.Fatalf("passage starts on line %d, inside the header", got.StartLine)
	}
}

func TestLocateChunk(t *testing.T) {
	text := strings.Repeat("alpha beta gamma.\n", 40) // 720 code points
	p := Passages{Matcher: wordMatcher{}}
	// A semantic hit without query words in the text: its chunk's start.
	c := &Candidate{Vector: &VectorHit{Start: 180, End: 360}}
	got := p.Locate(c, text, []string{"zeta"}, 100)
	checkLocated(t, text, got, 100)
	if got.Start != 180 || got.End > 360 || got.StartLine != 11 {
		t.Fatalf("chunk passage [%d, %d) line %d, want from 180 (line 11)", got.Start, got.End, got.StartLine)
	}
	// Query words elsewhere only: the window holding them wins over the chunk.
	text2 := text[:600] + "zeta eta " + text[600:]
	got = p.Locate(c, text2, []string{"zeta", "eta"}, 100)
	checkLocated(t, text2, got, 100)
	if !strings.Contains(got.Text, "zeta eta") {
		t.Fatalf("passage %q misses the words outside the chunk", got.Text)
	}
	// The same words inside the chunk as well: the chunk's occurrence.
	text3 := text2[:198] + "zeta eta " + text2[198:]
	got = p.Locate(c, text3, []string{"zeta", "eta"}, 100)
	checkLocated(t, text3, got, 100)
	if got.Start < 180 || got.End > 369 || !strings.Contains(got.Text, "zeta eta") {
		t.Fatalf("passage [%d, %d) %q, want the chunk's match", got.Start, got.End, got.Text)
	}
}

func TestLocateHighlightAndSpans(t *testing.T) {
	text := "héllo wörld " + strings.Repeat("x ", 200) + "needle here"
	p := Passages{}
	i := strings.Index(text, "needle")
	for _, h := range []*TextHit{
		{Spans: [][2]int{{i, i + 6}}},
		{Highlighted: text[:i] + "<mark>needle</mark>" + text[i+6:]},
	} {
		got := p.Locate(&Candidate{Text: h}, text, nil, 40)
		checkLocated(t, text, got, 40)
		if !strings.Contains(got.Text, "needle") {
			t.Fatalf("passage %q misses the span", got.Text)
		}
	}
	if got := p.Locate(&Candidate{}, "", nil, 40); got.Text != "" || got.StartLine != 1 {
		t.Fatalf("empty text: %+v", got)
	}
}

// TestLocateProperty: on random texts and queries, every passage is the
// code points it says, within the cap, and holds a query word whenever
// the text holds one (else it starts the chunk or the text).
func TestLocateProperty(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "délta", "日本", "epsilon", "zeta", "\n", "\n\n", "  ", "x_y", "ω"}
	r := rand.New(rand.NewPCG(1, 2))
	p := Passages{Matcher: wordMatcher{}}
	for it := 0; it < 3000; it++ {
		var b strings.Builder
		for range r.IntN(300) {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		if r.IntN(20) == 0 {
			b.WriteString("\xff\xfe") // invalid UTF-8
		}
		text := b.String()
		n := utf8.RuneCountInString(strings.ToValidUTF8(text, "\uFFFD"))
		terms := []string{words[r.IntN(7)], words[r.IntN(7)]}
		c := &Candidate{}
		if r.IntN(2) == 0 {
			s := r.IntN(n + 1)
			c.Vector = &VectorHit{Start: s - r.IntN(5), End: s + r.IntN(400)}
		}
		if r.IntN(2) == 0 {
			c.Text = &TextHit{Terms: terms}
		}
		maxChars := 1 + r.IntN(200)
		got := p.Locate(c, text, terms, maxChars)
		checkLocated(t, text, got, maxChars)
		longest := 0
		for _, w := range terms {
			longest = max(longest, utf8.RuneCountInString(w))
		}
		if holds(strings.ToValidUTF8(text, "\uFFFD"), terms) && maxChars >= longest && !holds(got.Text, terms) {
			t.Fatalf("text holds %q but passage %q (cap %d) does not", terms, got.Text, maxChars)
		}
		if got.Text != "" && (unicode.IsSpace([]rune(got.Text)[0]) || unicode.IsSpace([]rune(got.Text)[utf8.RuneCountInString(got.Text)-1])) {
			t.Fatalf("untrimmed passage %q", got.Text)
		}
	}
}
