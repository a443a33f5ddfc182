package grep

// Long lines in content mode.
//
// A content-mode row carries its whole line and ContextLines lines around
// it. Over one very long line (the largest legal text is 10 Mi characters,
// and a minified file or a log without newlines is one line) every match
// repeated the whole line: 100 matches of a 10 MB line answered a 1 GB
// response. So a line longer than LineChars code points is cut to a window
// of LineChars code points, marked at each cut end with the number of
// code points left out, as "[4980 characters cut]": a hit's line around
// its match (the match centred, or its start when the match alone is
// longer), a before line at its end and an after line at its start, the
// ends nearest the match. match_start and match_end stay offsets into the
// whole text, so read_context_range reads what was cut.
//
// A response then holds at most max_matches x (2 x context_lines + 1)
// windows: with the caps' defaults (1,000 matches, 20 context lines,
// 1,000 characters) at most 41 Mi characters, whatever the text.

import (
	"strconv"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
)

// DefaultLineChars is the window of a long line in content mode
// (GREP_MAX_LINE_CHARS): ten screen lines of a wide terminal, enough
// context around a match in prose or minified code.
const DefaultLineChars = 1000

// cutMark marks n code points cut from one end of a line.
func cutMark(n int) string { return "[" + strconv.Itoa(n) + " characters cut]" }

// windower cuts the long lines of one entry. Its cursor remembers a
// code-point position and its byte offset in the text, so the windows of
// the successive matches of one line cost the distance between them, not
// the line's length each.
type windower struct {
	l     *outline.Lines
	max   int
	runeP int // the cursor: a code-point offset into the text
	byteP int // and its byte offset
}

// byteAt returns the byte offset of code-point offset off of line i,
// moving the cursor there.
func (w *windower) byteAt(i, off int) int {
	if off < w.runeP || w.runeP < w.l.RuneStart[i] {
		w.runeP, w.byteP = w.l.RuneStart[i], w.l.ByteStart[i]
	}
	for w.runeP < off {
		_, n := utf8.DecodeRuneInString(w.l.Text[w.byteP:])
		w.byteP += n
		w.runeP++
	}
	return w.byteP
}

// forward returns the byte offset n code points after byte offset b, at
// most end.
func (w *windower) forward(b, n, end int) int {
	for ; n > 0 && b < end; n-- {
		_, sz := utf8.DecodeRuneInString(w.l.Text[b:end])
		b += sz
	}
	return b
}

// hitLine is line i of a match [start, end) (code points in the text),
// cut to a window around the match when longer than the limit.
func (w *windower) hitLine(i, start, end int) string {
	rs, re := w.l.RuneStart[i], w.l.RuneEnd[i]
	if re-rs <= w.max {
		return w.l.Line(i)
	}
	ws := start
	if end-start < w.max {
		ws = start - (w.max-(end-start))/2
	}
	ws = max(rs, min(ws, re-w.max))
	bs := w.byteAt(i, ws)
	be := w.forward(bs, w.max, w.l.ByteEnd[i])
	out := w.l.Text[bs:be]
	if ws > rs {
		out = cutMark(ws-rs) + out
	}
	if ws+w.max < re {
		out += cutMark(re - ws - w.max)
	}
	return out
}

// contextLine is line i shown beside a match: whole, or cut to its last
// window (a line before the match) or its first (a line after).
func (w *windower) contextLine(i int, before bool) string {
	rs, re := w.l.RuneStart[i], w.l.RuneEnd[i]
	if re-rs <= w.max {
		return w.l.Line(i)
	}
	bs, be := w.l.ByteStart[i], w.l.ByteEnd[i]
	cut := cutMark(re - rs - w.max)
	if !before {
		return w.l.Text[bs:w.forward(bs, w.max, be)] + cut
	}
	b := be
	for n := w.max; n > 0 && b > bs; n-- {
		_, sz := utf8.DecodeLastRuneInString(w.l.Text[bs:b])
		b -= sz
	}
	return cut + w.l.Text[b:be]
}
