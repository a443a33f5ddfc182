package outline

// Address is one addressing mode of read_context_range: a code-point range
// (StartChar/EndChar), a 1-based line range (StartLine/EndLine) or a
// section (NodeID). Nil fields are absent; exactly one mode is set.
type Address struct {
	StartChar, EndChar *int
	StartLine, EndLine *int
	NodeID             *string
}

// Span is a resolved part of a text: code-point offsets (End exclusive),
// the 1-based lines it covers, and its text.
type Span struct {
	StartChar, EndChar int
	StartLine, EndLine int
	Text               string
}

// Resolve clamps a to text and returns the span it names; ok is false
// when a names a section the text does not have (any more).
//
// Character ranges are clamped to the text and an inverted range reads as
// empty; line ranges are clamped to the lines and an inverted one reads as
// its first line; a node reads as its section's code-point span.
func Resolve(text string, a Address) (sp Span, ok bool) {
	l := SplitLines(text)
	var start, end int
	switch {
	case a.StartChar != nil || a.EndChar != nil:
		start, end = 0, l.TotalRunes
		if a.StartChar != nil {
			start = *a.StartChar
		}
		if a.EndChar != nil {
			end = *a.EndChar
		}
	case a.StartLine != nil || a.EndLine != nil:
		n := l.Count()
		first, last := 1, n
		if a.StartLine != nil {
			first = *a.StartLine
		}
		if a.EndLine != nil {
			last = *a.EndLine
		}
		first = min(max(first, 1), n)
		last = min(max(last, 1), n)
		if last < first {
			last = first
		}
		sp = Span{StartLine: first, EndLine: last, StartChar: l.RuneStart[first-1], EndChar: l.RuneEnd[last-1]}
		sp.Text = l.Slice(sp.StartChar, sp.EndChar)
		return sp, true
	case a.NodeID != nil:
		s, e, found := Parse(text).Find(*a.NodeID)
		if !found {
			return Span{}, false
		}
		start, end = s, e
	}
	start = min(max(start, 0), l.TotalRunes)
	end = min(max(end, 0), l.TotalRunes)
	if end < start {
		end = start
	}
	sp = Span{StartChar: start, EndChar: end, StartLine: l.LineOf(start) + 1}
	sp.EndLine = sp.StartLine
	if end > start {
		sp.EndLine = l.LineOf(end-1) + 1
	}
	sp.Text = l.Slice(start, end)
	return sp, true
}
