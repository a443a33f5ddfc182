package index

import (
	"sort"

	"github.com/blevesearch/bleve/v2/search"
)

// anyTerm in a recorded phrase stands for the expanded prefix at its end.
const anyTerm = ""

// phraseSpans converts a hit's term locations to sorted, merged byte
// ranges as SQLite FTS5's highlight() marks them, so both backends
// highlight alike: each instance of a phrase is one range from its first
// word to its last (fmt.Println as a phrase is <mark>fmt.Println</mark>,
// "the lazy dog" is <mark>the lazy dog</mark>), every other matched word
// its own range (lazy dog in match mode is <mark>lazy</mark>
// <mark>dog</mark>). Words of split tokens are ranges of their own:
// Println inside fmt.Println is fmt.<mark>Println</mark>.
func phraseSpans(tl search.TermLocationMap, phrases [][]string) [][2]int {
	if len(phrases) == 0 {
		return spans(tl)
	}
	type loc struct {
		term       string
		start, end int
	}
	at := map[uint64]loc{}
	for term, locs := range tl {
		for _, l := range locs {
			at[l.Pos] = loc{term: term, start: int(l.Start), end: int(l.End)}
		}
	}
	var out [][2]int
	covered := map[uint64]bool{}
	for pos, first := range at {
		for _, p := range phrases {
			if p[0] != anyTerm && p[0] != first.term {
				continue
			}
			last, ok := first, true
			for i := 1; i < len(p) && ok; i++ {
				l, found := at[pos+uint64(i)]
				ok = found && (p[i] == anyTerm || p[i] == l.term)
				last = l
			}
			if !ok {
				continue
			}
			out = append(out, [2]int{first.start, last.end})
			for i := range p {
				covered[pos+uint64(i)] = true
			}
		}
	}
	for pos, l := range at {
		if !covered[pos] {
			out = append(out, [2]int{l.start, l.end})
		}
	}
	return mergeSpans(out)
}

// mergeSpans sorts byte ranges and merges those that overlap or touch.
func mergeSpans(out [][2]int) [][2]int {
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] || (out[i][0] == out[j][0] && out[i][1] < out[j][1]) })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	return merged
}
