package kchunk

import (
	"strings"
	"unicode/utf8"
)

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
		rest := c.text[pos:all.end]
		end := pos + c.r.tok.IndexAt(rest, c.r.max)
		if end <= pos {
			_, n := utf8.DecodeRuneInString(rest)
			end = pos + n
		}
		if end < all.end {
			end = c.naturalBreak(pos, end)
		}
		if s := c.trim(span{pos, end}); s.start < s.end {
			out = append(out, s)
		}
		if end >= all.end {
			break
		}
		next := end
		if chunk := c.text[pos:end]; c.r.overlap > 0 {
			total := c.r.tok.Count(chunk)
			if total > c.r.overlap {
				next = pos + c.r.tok.IndexAt(chunk, total-c.r.overlap)
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
