package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Located is the passage shown with a ranked result: the part of the
// entry's text where the query matched, so a caller sees why the entry
// ranked without reading it whole (text_content is the start of the
// text, for a source file usually its licence header).
type Located struct {
	Text string
	// Start and End are the passage's code points [Start, End) in the
	// entry's text; StartLine and EndLine the 1-based lines holding its
	// first and last code point.
	Start, End         int
	StartLine, EndLine int
	// Terms counts the distinct query words the passage holds (as the
	// full-text index matches them: stemmed, case-folded).
	Terms int
}

// Locate returns the passage of a candidate with the given text, at most
// maxChars code points:
//
//   - the region it is taken from is the candidate's best chunk when the
//     vector leg found it, unless a window elsewhere in the text holds
//     more distinct query words than the chunk does; the whole text
//     otherwise;
//   - inside the region, the window of maxChars code points holding the
//     most distinct query words (then the most matches), the matches
//     centred in it and its edges moved to word boundaries;
//   - with no match in the text, the start of the region: the best chunk
//     (the chunk the vector leg scored best) or the start of the text.
//
// The matches are the full-text hit's own (its spans, or a native
// engine's highlight), else those the Matcher finds for terms (the
// query's index terms; a hit's own terms take precedence). It never
// panics: offsets outside the text are clamped, invalid UTF-8 reads as
// U+FFFD.
func (p Passages) Locate(c *Candidate, text string, terms []string, maxChars int) Located {
	if maxChars <= 0 || text == "" {
		return Located{StartLine: 1, EndLine: 1}
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	runes := []rune(text)
	n := len(runes)
	spans := p.matchSpans(c, text, terms)
	region := span{0, n}
	if c.Vector != nil {
		s, e := max(c.Vector.Start, 0), min(c.Vector.End, n)
		if s < e {
			region = span{s, e}
			if in := bestWindow(runes, spans, region, maxChars); in.terms < bestWindow(runes, spans, span{0, n}, maxChars).terms {
				region = span{0, n}
			}
		}
	}
	w := bestWindow(runes, spans, region, maxChars)
	s, e := trimRunes(runes, w.s, w.e)
	return Located{
		Text:  string(runes[s:e]),
		Start: s, End: e,
		StartLine: lineOf(runes, s), EndLine: lineOf(runes, max(e-1, s)),
		Terms: w.terms,
	}
}

// matchSpans are the code-point spans of the query's matches in text, in
// text order: the full-text hit's, else the Matcher's for terms.
func (p Passages) matchSpans(c *Candidate, text string, terms []string) []span {
	if h := c.Text; h != nil {
		switch {
		case h.Spans != nil:
			return runeSpans(text, h.Spans)
		case h.Highlighted != "":
			// A native highlight is the whole text with marks: its spans
			// are in the same code points once the marks are removed.
			if plain, spans := stripMarks(h.Highlighted); string(plain) == text {
				return spans
			}
		}
		if len(h.Terms) > 0 {
			terms = h.Terms
		}
	}
	if p.Matcher == nil || len(terms) == 0 {
		return nil
	}
	return runeSpans(text, p.Matcher.MatchSpans(text, terms))
}

// runeSpans converts sorted byte ranges of text to code-point spans,
// dropping ranges that are empty, out of order or outside the text.
func runeSpans(text string, bs [][2]int) []span {
	out := make([]span, 0, len(bs))
	at, cp := 0, 0 // byte offset at and its code point cp
	conv := func(b int) int {
		for at < b && at < len(text) {
			_, size := utf8.DecodeRuneInString(text[at:])
			at += size
			cp++
		}
		return cp
	}
	last := 0
	for _, r := range bs {
		if r[0] < last || r[0] >= r[1] || r[1] > len(text) {
			continue
		}
		s := conv(r[0])
		e := conv(r[1])
		out = append(out, span{s, e})
		last = r[1]
	}
	return out
}

// window is a candidate passage: its code points and how many distinct
// terms and matches it holds.
type window struct {
	s, e           int
	terms, matches int
}

// bestWindow is the window of at most maxChars code points inside region
// holding the most distinct matched words, then the most matches, then
// the earliest; its matches are centred in it. Without a match in the
// region it is the region's start.
func bestWindow(runes []rune, spans []span, region span, maxChars int) window {
	var in []span
	for _, sp := range spans {
		if sp.s >= region.s && sp.e <= region.e {
			in = append(in, sp)
		}
	}
	size := min(maxChars, region.e-region.s)
	if len(in) == 0 {
		return window{s: region.s, e: region.s + size}
	}
	keys := make([]string, len(in))
	for i, sp := range in {
		keys[i] = strings.ToLower(string(runes[sp.s:sp.e]))
	}
	best := window{terms: -1}
	seen := map[string]int{}
	for i := range in {
		clear(seen)
		j := i
		for ; j < len(in) && in[j].e-in[i].s <= size; j++ {
			seen[keys[j]]++
		}
		if j == i { // a match longer than the window: the match alone
			j = i + 1
			seen[keys[i]]++
		}
		if len(seen) > best.terms || len(seen) == best.terms && j-i > best.matches {
			best = window{s: in[i].s, e: in[j-1].e, terms: len(seen), matches: j - i}
		}
	}
	// Centre the matches in a window of size, kept inside the region.
	if l := best.e - best.s; l < size {
		pad := size - l
		best.s -= pad / 2
		best.e += pad - pad/2
		if best.s < region.s {
			best.e += region.s - best.s
			best.s = region.s
		}
		if best.e > region.e {
			best.s = max(best.s-(best.e-region.e), region.s)
			best.e = region.e
		}
		best.s, best.e = wordEdges(runes, best.s, best.e, in, region)
	} else {
		best.e = best.s + size
	}
	return best
}

// wordEdges moves the edges of [s, e) inward to word boundaries, by at
// most a short word's length and never across a match, so a passage does
// not start or end inside a word.
func wordEdges(runes []rune, s, e int, matches []span, region span) (int, int) {
	const maxMove = 16
	first, last := e, s
	for _, m := range matches {
		if m.s >= s && m.e <= e {
			first, last = min(first, m.s), max(last, m.e)
		}
	}
	if s > region.s && isWord(runes[s-1]) && isWord(runes[s]) {
		for k := s; k < min(s+maxMove, first); k++ {
			if !isWord(runes[k]) {
				s = k
				break
			}
		}
	}
	if e < region.e && isWord(runes[e-1]) && isWord(runes[e]) {
		for k := e - 1; k > max(e-maxMove, last); k-- {
			if !isWord(runes[k]) {
				e = k + 1
				break
			}
		}
	}
	return s, e
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// trimRunes drops white space at both ends of [s, e).
func trimRunes(runes []rune, s, e int) (int, int) {
	for s < e && unicode.IsSpace(runes[s]) {
		s++
	}
	for e > s && unicode.IsSpace(runes[e-1]) {
		e--
	}
	return s, e
}

// lineOf is the 1-based line of the code point at i.
func lineOf(runes []rune, i int) int {
	line := 1
	for _, r := range runes[:min(i, len(runes))] {
		if r == '\n' {
			line++
		}
	}
	return line
}
