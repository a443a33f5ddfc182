package contextd

import "github.com/contextd/contextd/internal/rank"

func passageOf(l rank.Located) *Passage {
	return &Passage{Text: l.Text, Start: l.Start, End: l.End, StartLine: l.StartLine, EndLine: l.EndLine}
}
