package knowledge

import (
	"sort"
	"unicode/utf8"
)

// Position is where a hit's chunk sits in its document's text, as the
// context tools report a ranked result's passage: the code points
// [Start, End) and the 1-based lines holding its first and last code
// point. The chunker records byte offsets; a caller counts characters
// and lines, so they are converted here.
type Position struct {
	Text               string // the document's text in the span
	Start, End         int
	StartLine, EndLine int
}

// lineIndex locates byte offsets of one text: the byte offset of each
// line's start and the code points before it, so converting an offset
// walks at most one line.
type lineIndex struct {
	text   string
	starts []int // byte offset of each line's first byte; starts[0] = 0
	runes  []int // code points before each line's start
}

func newLineIndex(text string) lineIndex {
	li := lineIndex{text: text, starts: []int{0}, runes: []int{0}}
	n := 0
	for i, r := range text {
		n++
		if r == '\n' {
			li.starts = append(li.starts, i+1)
			li.runes = append(li.runes, n)
		}
	}
	return li
}

// at is the line (0-based) holding byte offset b and the code points
// before b; b is clamped to the text.
func (li lineIndex) at(b int) (line, runes int) {
	b = min(max(b, 0), len(li.text))
	line = sort.SearchInts(li.starts, b+1) - 1
	return line, li.runes[line] + utf8.RuneCountInString(li.text[li.starts[line]:b])
}

// position converts a chunk's byte span [start, end) to a Position. A
// span outside the text (a document edited since it was chunked) is
// clamped; a document that could not be read is line 1.
func (li lineIndex) position(start, end int) Position {
	if len(li.starts) == 0 {
		return Position{StartLine: 1, EndLine: 1}
	}
	start = min(max(start, 0), len(li.text))
	end = min(max(end, start), len(li.text))
	// Clamped offsets may fall inside a character: widen to its bounds.
	for start > 0 && start < len(li.text) && !utf8.RuneStart(li.text[start]) {
		start--
	}
	for end < len(li.text) && !utf8.RuneStart(li.text[end]) {
		end++
	}
	ls, rs := li.at(start)
	_, re := li.at(end)
	le := ls
	if end > start {
		le, _ = li.at(end - 1) // the line of the last byte, not of the offset after it
	}
	return Position{Text: li.text[start:end], Start: rs, End: re, StartLine: ls + 1, EndLine: le + 1}
}
