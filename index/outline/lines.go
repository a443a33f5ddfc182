package outline

import (
	"strings"
	"unicode/utf8"
)

// Lines is a text split into logical lines on "\n" or "\r\n" only (a lone
// "\r", U+2028 and the other Unicode separators stay inside a line). A
// trailing newline yields a final empty line, so "a\nb\n" has three lines.
// Offsets are kept both in bytes (for slicing) and in code points (the
// offsets every tool reports).
type Lines struct {
	Text string
	// ByteStart[i] and RuneStart[i] are where line i begins; ByteEnd[i] and
	// RuneEnd[i] where its content ends, before the terminator.
	ByteStart, ByteEnd []int
	RuneStart, RuneEnd []int
	// TotalRunes is the length of Text in code points.
	TotalRunes int
}

// SplitLines splits text into logical lines.
func SplitLines(text string) *Lines {
	// Sized up front: growing four arrays by appending would allocate
	// about twice their final size for a long text.
	n := strings.Count(text, "\n") + 1
	l := &Lines{Text: text, ByteStart: make([]int, 0, n), ByteEnd: make([]int, 0, n),
		RuneStart: make([]int, 0, n), RuneEnd: make([]int, 0, n)}
	bs, rs := 0, 0
	runes := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\n' {
			be, re := i, runes
			if i > bs && text[i-1] == '\r' {
				be, re = i-1, runes-1
			}
			l.add(bs, be, rs, re)
			i++
			runes++
			bs, rs = i, runes
			continue
		}
		if c < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
		runes++
	}
	l.add(bs, len(text), rs, runes)
	l.TotalRunes = runes
	return l
}

func (l *Lines) add(bs, be, rs, re int) {
	l.ByteStart = append(l.ByteStart, bs)
	l.ByteEnd = append(l.ByteEnd, be)
	l.RuneStart = append(l.RuneStart, rs)
	l.RuneEnd = append(l.RuneEnd, re)
}

// Count is the number of lines (at least 1).
func (l *Lines) Count() int { return len(l.ByteStart) }

// Line returns the content of line i (0-based) without its terminator.
func (l *Lines) Line(i int) string { return l.Text[l.ByteStart[i]:l.ByteEnd[i]] }

// LineOf returns the 0-based line holding code-point offset off; an offset
// at or past the end belongs to the last line.
func (l *Lines) LineOf(off int) int {
	lo, hi := 0, len(l.RuneStart)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l.RuneStart[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// ByteOffset converts a code-point offset (clamped to the text) to a byte
// offset.
func (l *Lines) ByteOffset(off int) int {
	if off <= 0 {
		return 0
	}
	if off >= l.TotalRunes {
		return len(l.Text)
	}
	i := l.LineOf(off)
	b := l.ByteStart[i]
	for n := off - l.RuneStart[i]; n > 0; n-- {
		_, sz := utf8.DecodeRuneInString(l.Text[b:])
		b += sz
	}
	return b
}

// Slice returns the text between two code-point offsets (clamped).
func (l *Lines) Slice(start, end int) string {
	if end < start {
		end = start
	}
	return l.Text[l.ByteOffset(start):l.ByteOffset(end)]
}
