package rank

import (
	"github.com/contextd/contextd/index"
)

// Passages choose the reranker passage of each candidate. The zero
// value uses the defaults.
type Passages struct {
	// MaxChars caps a passage, in code points (default
	// RERANKING_MAX_LENGTH 512 · RERANKING_CHARS_PER_TOKEN 4 · 0.95).
	MaxChars int
	// Window and GapMerge shape full-text passages around the matches
	// (FTS_RERANK_WINDOW_SIZE 750, FTS_RERANK_GAP_MERGE 100; a negative
	// GapMerge means 0, no merging).
	Window, GapMerge int
	// Matcher finds the matches of a full-text hit that came without
	// highlight; nil when no in-process index can.
	Matcher Matcher
}

// Matcher finds the code-point spans of terms in a text (the in-process
// full-text index).
type Matcher interface {
	MatchSpans(text string, terms []string) [][2]int
}

// maxChars is the longest passage in code points.
func (p Passages) maxChars() int {
	if p.MaxChars > 0 {
		return p.MaxChars
	}
	return 512 * 4 * 95 / 100
}

// For is the passage of a candidate with the given text: the windows
// around its full-text matches when the full-text leg found it, else its
// best chunk, else the start of the text.
func (p Passages) For(c *Candidate, text string) string {
	if c.Text != nil {
		return p.FTS(text, c.Text)
	}
	if c.Vector != nil {
		return ChunkPassage(text, c.Vector.Start, c.Vector.End, p.maxChars())
	}
	return Truncate(text, p.maxChars())
}

// FTS is the passage of a full-text hit: windows of Window code points
// around the highlighted matches.
func (p Passages) FTS(text string, h *TextHit) string {
	max := p.maxChars()
	hl := h.Highlighted
	switch {
	case hl != "":
	case h.Spans != nil:
		hl = index.Highlight(text, h.Spans)
	case len(text) <= max:
		hl = text // the passage is the whole text: no windows to place
	case p.Matcher != nil:
		hl = index.Highlight(text, p.Matcher.MatchSpans(text, h.Terms))
	default:
		hl = text
	}
	w, gap := p.Window, p.GapMerge
	if w <= 0 {
		w = 750
	}
	switch {
	case gap < 0:
		gap = 0
	case gap == 0:
		gap = 100
	}
	return FTSPassage(hl, w, gap, max)
}
