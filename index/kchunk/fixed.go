package kchunk

import (
	"strings"
	"unicode/utf8"
)

// window returns the end of the longest text[pos:end] (end ≤ hi) whose
// trimmed form has at most limit tokens, and at least one character.
// BPE counts are not monotonic under trimming (" walked" is one token,
// "walked" two), so the count is checked on the trimmed text.
func (c *chunker) window(pos, hi, limit int) int {
	for pos < hi && isSpaceByte(c.text[pos]) {
		pos++
	}
	if pos >= hi {
		return hi
	}
	// Tokenise a probe of the text, not all the rest: encoding the whole
	// remainder for every window made FixedSize quadratic (a 150 kB text
	// took seconds). The probe doubles until it holds more than limit
	// tokens plus a margin, so the first limit tokens are those of the
	// full text; the loop below checks the count exactly anyway.
	probe := pos + 8*limit + 64
	var end int
	for {
		if probe >= hi {
			end = pos + c.indexAt(c.text[pos:hi], limit)
			break
		}
		for probe < hi && !utf8.RuneStart(c.text[probe]) {
			probe++
		}
		if c.count(c.text[pos:probe]) > limit+8 {
			end = pos + c.indexAt(c.text[pos:probe], limit)
			break
		}
		probe = pos + 2*(probe-pos)
	}
	for {
		s := c.trim(span{pos, end})
		if s.end <= s.start || c.tokens(s) <= limit {
			break
		}
		shorter := s.start + c.indexAt(c.text[s.start:s.end], limit-1)
		if shorter >= end || shorter <= pos {
			break
		}
		end = shorter
	}
	if end <= pos {
		_, n := utf8.DecodeRuneInString(c.text[pos:hi])
		end = pos + n
	}
	return end
}

// fixed is the FixedSize strategy (B3): windows of MaxTokens tokens, each
// end snapped back to a natural break (blank line, line end, sentence end,
// space) within the last quarter of the window (at most 100 bytes), and
// consecutive windows sharing Overlap tokens. Unlike upstream, a short
// middle piece is kept rather than dropped, so no text is ever lost.
func (c *chunker) fixed(all span) ([]span, error) {
	var out []span
	pos := all.start
	for pos < all.end {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		end := c.window(pos, all.end, c.r.max)
		if end < all.end {
			end = c.naturalBreak(pos, end)
		}
		if end <= pos {
			break
		}
		if s := c.trim(span{pos, end}); s.start < s.end {
			out = append(out, s)
		}
		if end >= all.end {
			break
		}
		next := end
		if chunk := c.text[pos:end]; c.r.overlap > 0 {
			total := c.count(chunk)
			if total > c.r.overlap {
				next = pos + c.indexAt(chunk, total-c.r.overlap)
			}
		}
		if next <= pos {
			next = end
		}
		pos = next
	}
	return out, nil
}

// naturalBreak searches back from end, at most min(100, (end-pos)/4)
// bytes and never to pos, for a blank line, a line end, a sentence end or
// a space, in that order of preference; none keeps end.
func (c *chunker) naturalBreak(pos, end int) int {
	window := min(100, (end-pos)/4)
	lo := end - window
	if lo <= pos {
		lo = pos + 1
	}
	w := c.text[lo:end]
	if i := strings.LastIndex(w, "\n\n"); i >= 0 {
		return lo + i + 2
	}
	if i := strings.LastIndexByte(w, '\n'); i >= 0 {
		return lo + i + 1
	}
	for i := len(w) - 2; i >= 0; i-- {
		if w[i] == '.' && isSpaceByte(w[i+1]) {
			return lo + i + 1
		}
	}
	if i := strings.LastIndexAny(w, " \t"); i > 0 {
		return lo + i
	}
	return end
}
