package knowledge

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPositionOracle checks position against a direct count over the
// text: code points before each end and the lines of the first and last
// byte, for random spans (in range, reversed, outside the text) of texts
// mixing multi-byte characters and newlines.
func TestPositionOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "世界", "\n", "\n\n", "word ", "🙂"}
	for range 200 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		li := newLineIndex(text)
		for range 20 {
			start, end := rng.IntN(len(text)+3)-1, rng.IntN(len(text)+3)-1
			got := li.position(start, end)
			s := min(max(start, 0), len(text))
			e := min(max(end, s), len(text))
			for s > 0 && s < len(text) && !utf8.RuneStart(text[s]) { // a span cut inside a character takes all of it
				s--
			}
			for e < len(text) && !utf8.RuneStart(text[e]) {
				e++
			}
			want := Position{Text: text[s:e], Start: utf8.RuneCountInString(text[:s]), End: utf8.RuneCountInString(text[:e]),
				StartLine: 1 + strings.Count(text[:s], "\n")}
			want.EndLine = want.StartLine
			if e > s {
				want.EndLine = 1 + strings.Count(text[:e-1], "\n")
			}
			if got != want || !utf8.ValidString(got.Text) {
				t.Fatalf("text %q span [%d,%d): got %+v, want %+v", text, start, end, got, want)
			}
		}
	}
	if got := (lineIndex{}).position(3, 9); got != (Position{StartLine: 1, EndLine: 1}) {
		t.Errorf("unread document: %+v", got)
	}
}
