package rank

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// matcher marks every occurrence of its terms and records its calls.
type matcher struct{ calls int }

func (m *matcher) MatchSpans(text string, terms []string) [][2]int {
	m.calls++
	var out [][2]int
	for _, term := range terms {
		if i := strings.Index(text, term); i >= 0 {
			s := utf8.RuneCountInString(text[:i])
			out = append(out, [2]int{s, s + utf8.RuneCountInString(term)})
		}
	}
	return out
}

func TestPassages(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 300) + "needle " + strings.Repeat("dolor sit ", 300)
	def := 512 * 4 * 95 / 100
	var p Passages
	if p.maxChars() != def {
		t.Fatalf("default max %d", p.maxChars())
	}

	// No hit: the start of the text.
	if got := p.For(&Candidate{ID: "x"}, long); got != Truncate(long, def) {
		t.Fatalf("fallback passage %q", got[:40])
	}
	// A vector hit: its chunk.
	c := &Candidate{Vector: &VectorHit{Start: 6, End: 11}}
	if got := p.For(c, long); got != "ipsum" {
		t.Fatalf("chunk passage %q", got)
	}
	// A text hit wins over a vector hit: the windows around its match.
	c.Text = &TextHit{Highlighted: strings.Replace(long, "needle", "<mark>needle</mark>", 1)}
	got := p.For(c, long)
	if !strings.Contains(got, "needle") || strings.Contains(got, "…") || utf8.RuneCountInString(got) != 750 {
		t.Fatalf("fts passage (%d) %q", utf8.RuneCountInString(got), got)
	}
	if want := FTSPassage(c.Text.Highlighted, 750, 100, def); got != want {
		t.Fatalf("fts passage is not the default window")
	}

	// In-process spans highlight the text.
	i := utf8.RuneCountInString(long[:strings.Index(long, "needle")])
	spans := &TextHit{Spans: [][2]int{{i, i + 6}}}
	if got := p.FTS(long, spans); got != FTSPassage(strings.Replace(long, "needle", "<mark>needle</mark>", 1), 750, 100, def) {
		t.Fatalf("spans passage %q", got)
	}

	// Without highlight or spans, the matcher places the windows; a short
	// text is its own passage and needs no matcher.
	m := &matcher{}
	p = Passages{Matcher: m, Window: 20, GapMerge: -5, MaxChars: 100}
	h := &TextHit{Terms: []string{"needle"}}
	if got := p.FTS(long, h); got != FTSPassage(strings.Replace(long, "needle", "<mark>needle</mark>", 1), 20, 0, 100) || m.calls != 1 {
		t.Fatalf("matched passage %q (%d calls)", got, m.calls)
	}
	if got := p.FTS("short needle text", h); got != "short needle text" || m.calls != 1 {
		t.Fatalf("short passage %q (%d calls)", got, m.calls)
	}
	// Without a matcher, the start of the text.
	p.Matcher = nil
	if got := p.FTS(long, h); got != Truncate(long, 100) {
		t.Fatalf("unmatched passage %q", got)
	}
}
