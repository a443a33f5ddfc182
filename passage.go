package contextd

import "github.com/contextd/contextd/internal/rank"

// Passage is the part of a ranked entry's text where the query matched,
// carried by every result of the ranked searches (the key "passage",
// added to upstream's result keys, which are unchanged): text_content is
// the start of the text, which for a whole file is usually its licence
// header, so the passage says why the entry ranked.
//
// It is the window of at most SEARCH_TRUNCATION_LENGTH code points
// holding the most distinct query words (in-process full text: the
// index's own matches, stemmed and case-folded), taken inside the best
// chunk of a semantic hit when that chunk holds as many; without a match
// it is the start of the best chunk (semantic search), else of the text.
// Start and End are code-point offsets into the entry's text, [Start,
// End); StartLine and EndLine the 1-based lines of its first and last
// code point.
type Passage struct {
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

func passageOf(l rank.Located) *Passage {
	return &Passage{Text: l.Text, Start: l.Start, End: l.End, StartLine: l.StartLine, EndLine: l.EndLine}
}
