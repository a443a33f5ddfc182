package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage selection: what text a reranker sees for each candidate.
// Every length and offset here is in Unicode code points, never bytes;
// the functions never panic and always return valid UTF-8 (invalid input
// bytes become U+FFFD). A maxChars of 0 or less yields "".

const (
	markOpen  = "<mark>"
	markClose = "</mark>"
	// passageSep joins the windows of one FTS passage.
	passageSep = " … "
)

// Truncate returns the first maxChars code points of text (R-371 fallback:
// the first RERANKING_MAX_LENGTH·RERANKING_CHARS_PER_TOKEN·0.95 chars).
func Truncate(text string, maxChars int) string {
	if maxChars <= 0 {
		return ""
	}
	n := 0
	for i := range text {
		if n == maxChars {
			text = text[:i]
			break
		}
		n++
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text
}

// ChunkPassage returns the semantic passage of R-371: the code points
// [start, end) of text -- the best-matching chunk -- clamped to the text and
// capped at maxChars. When the span is empty or lies outside the text it
// falls back to Truncate(text, maxChars).
func ChunkPassage(text string, start, end, maxChars int) string {
	start = max(start, 0)
	if start >= end {
		return Truncate(text, maxChars)
	}
	bs, be, n := -1, len(text), 0
	for i := range text {
		if n == start {
			bs = i
		}
		if n == end {
			be = i
			break
		}
		n++
	}
	if bs < 0 {
		return Truncate(text, maxChars)
	}
	return Truncate(text[bs:be], maxChars)
}

// span is a half-open range of code points.
type span struct{ s, e int }

// FTSPassage returns the full-text passage of R-371 from highlighted, the
// full text with <mark>…</mark> around the matched terms: windows of
// window code points (FTS_RERANK_WINDOW_SIZE, 750) centred on the marked
// spans, spans closer than gapMerge code points (FTS_RERANK_GAP_MERGE, 100)
// being merged first and overlapping windows joined, in text order, with
// " … " between them, the mark tags removed, and the whole capped at
// maxChars code points (later windows are cut first). A window is moved
// inward at the ends of the text so it keeps its size, and a merged span
// longer than window is kept whole (up to the cap). Whitespace at window
// edges is trimmed. With no (non-empty) marked span it returns the first
// maxChars code points of the text with the tags removed.
//
// Tags are matched exactly and case-sensitively; a nested <mark> and a stray
// </mark> are dropped, and a <mark> left open runs to the end of the text.
// window ≤ 0 keeps just the merged spans; gapMerge ≤ 0 merges only spans
// that touch.
func FTSPassage(highlighted string, window, gapMerge, maxChars int) string {
	if maxChars <= 0 {
		return ""
	}
	plain, spans := stripMarks(highlighted)
	if len(spans) == 0 {
		return noMarks(string(plain[:min(maxChars, len(plain))]))
	}
	n := len(plain)
	window = min(window, n)
	// Merge spans closer than gapMerge (spans arrive in text order and do
	// not overlap).
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.s-last.e < gapMerge || sp.s <= last.e {
			last.e = max(last.e, sp.e)
			continue
		}
		merged = append(merged, sp)
	}
	// Windows around the merged spans, joined where they overlap or touch.
	wins := make([]span, 0, len(merged))
	for _, sp := range merged {
		w := sp
		if l := sp.e - sp.s; l < window {
			pad := window - l
			w.s -= pad / 2
			w.e += pad - pad/2
			if w.s < 0 {
				w.e -= w.s
				w.s = 0
			}
			if w.e > n {
				w.s = max(w.s-(w.e-n), 0)
				w.e = n
			}
		}
		if k := len(wins); k > 0 && w.s <= wins[k-1].e {
			wins[k-1].e = max(wins[k-1].e, w.e)
			continue
		}
		wins = append(wins, w)
	}
	sep := []rune(passageSep)
	out := make([]rune, 0, min(maxChars, n+len(wins)*len(sep)))
	for _, w := range wins {
		piece := trimSpace(plain[w.s:w.e])
		if len(piece) == 0 {
			continue
		}
		if len(out) > 0 {
			if maxChars-len(out) <= len(sep) {
				break
			}
			out = append(out, sep...)
		}
		room := maxChars - len(out)
		if len(piece) >= room {
			out = append(out, piece[:room]...)
			break
		}
		out = append(out, piece...)
	}
	return noMarks(string(out))
}

// stripMarks returns the code points of s without the mark tags and the
// non-empty marked spans in those code points, in order.
func stripMarks(s string) ([]rune, []span) {
	plain := make([]rune, 0, len(s))
	var spans []span
	open, at := false, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == '<' {
			if strings.HasPrefix(s[i:], markOpen) {
				if !open {
					open, at = true, len(plain)
				}
				i += len(markOpen)
				continue
			}
			if strings.HasPrefix(s[i:], markClose) {
				if open {
					open = false
					if len(plain) > at {
						spans = append(spans, span{at, len(plain)})
					}
				}
				i += len(markClose)
				continue
			}
		}
		if c < utf8.RuneSelf {
			plain = append(plain, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		plain = append(plain, r)
		i += size
	}
	if open && len(plain) > at {
		spans = append(spans, span{at, len(plain)})
	}
	return plain, spans
}

// noMarks removes mark tags that removing others brought together (as in
// "<ma<mark>rk>"), so no tag survives in a passage.
func noMarks(s string) string {
	for strings.Contains(s, markOpen) || strings.Contains(s, markClose) {
		s = strings.ReplaceAll(s, markOpen, "")
		s = strings.ReplaceAll(s, markClose, "")
	}
	return s
}

func trimSpace(r []rune) []rune {
	for len(r) > 0 && unicode.IsSpace(r[0]) {
		r = r[1:]
	}
	for len(r) > 0 && unicode.IsSpace(r[len(r)-1]) {
		r = r[:len(r)-1]
	}
	return r
}
