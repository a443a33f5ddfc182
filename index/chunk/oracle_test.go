package chunk

// The former splitter, which copied every piece into a []rune of its own,
// is the oracle of the span-based one: both must cut every text into the
// same chunks at the same offsets.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitMatchesRuneSplitter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"a", "bb", "ccc", "déjà", "日本語", "x.", "end.", "\n", "\n\n", " ", "  ", "\u00a0", "\u2028", "\x1f", ". ", "longerwordwithoutbreaks"}
	for i := range 1000 {
		var b strings.Builder
		for range r.IntN(400) {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		text := b.String()
		size := 1 + r.IntN(60)
		overlap := r.IntN(size)
		if i%10 == 0 {
			overlap = 0
		}
		o := Options{Size: size, Overlap: overlap}
		got, err := Split(text, o)
		want, werr := runeSplit(text, o)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("%q %+v: error %v, the rune splitter %v", text, o, err, werr)
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Fatalf("%q %+v:\n got %+v\nwant %+v", text, o, got, want)
		}
		checkInvariants(t, text, size, got)
	}
	if !utf8.ValidString(words[4]) {
		t.Fatal("the word list is not UTF-8")
	}
}

// Split cuts text into chunks. A text of at most Size code points is one
// chunk [0, len). Text that is not valid UTF-8 is an error (the engine
// validates text before it gets here). Options outside what Validate accepts for size and
// overlap relations (size < 1, overlap < 0 or ≥ size) are an error.
func runeSplit(text string, o Options) ([]Chunk, error) {
	o = o.resolved()
	if o.Size < 1 || o.Overlap < 0 || o.Overlap >= o.Size {
		return nil, fmt.Errorf("%w: size %d, overlap %d", ErrInvalid, o.Size, o.Overlap)
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("%w: text is not valid UTF-8", ErrInvalid)
	}
	n := utf8.RuneCountInString(text)
	if n <= o.Size {
		return []Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	s := runeSplitter{size: o.Size, overlap: o.Overlap}
	pieces := s.split([]rune(text), separators)
	if len(pieces) == 0 {
		return []Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	return runeLocate(text, pieces, o.Overlap), nil
}

type runeSplitter struct {
	size, overlap int
}

// split is RecursiveCharacterTextSplitter._split_text: pick the first
// separator present, split keeping it at the start of the following piece,
// merge the short pieces, recurse into the long ones.
func (s *runeSplitter) split(text []rune, seps []string) [][]rune {
	sep := seps[len(seps)-1]
	var rest []string
	for i, c := range seps {
		if c == "" {
			sep = c
			break
		}
		if containsRunes(text, c) {
			sep = c
			rest = seps[i+1:]
			break
		}
	}
	var out, good [][]rune
	for _, p := range runeSplitKeepStart(text, sep) {
		if len(p) < s.size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			out = append(out, s.merge(good)...)
			good = nil
		}
		if len(rest) == 0 {
			out = append(out, p)
		} else {
			out = append(out, s.split(p, rest)...)
		}
	}
	if len(good) > 0 {
		out = append(out, s.merge(good)...)
	}
	return out
}

// merge is TextSplitter._merge_splits with the empty joiner that
// keep_separator implies: pieces are contiguous, so a joined document is
// the span from its first piece to its last.
func (s *runeSplitter) merge(pieces [][]rune) [][]rune {
	var docs [][]rune
	cur := pieces[:0:0]
	total := 0
	for _, p := range pieces {
		if total+len(p) > s.size {
			if len(cur) > 0 {
				if d := runeJoinStrip(cur); len(d) > 0 {
					docs = append(docs, d)
				}
				for total > s.overlap || (total+len(p) > s.size && total > 0) {
					total -= len(cur[0])
					cur = cur[1:]
				}
			}
		}
		cur = append(cur, p)
		total += len(p)
	}
	if d := runeJoinStrip(cur); len(d) > 0 {
		docs = append(docs, d)
	}
	return docs
}

// runeJoinStrip concatenates pieces and strips whitespace as Python's
// str.strip does.
func runeJoinStrip(cur [][]rune) []rune {
	n := 0
	for _, p := range cur {
		n += len(p)
	}
	out := make([]rune, 0, n)
	for _, p := range cur {
		out = append(out, p...)
	}
	i, j := 0, len(out)
	for i < j && isPySpace(out[i]) {
		i++
	}
	for j > i && isPySpace(out[j-1]) {
		j--
	}
	return out[i:j]
}

// runeSplitKeepStart is re.split with the separator kept at the start of the
// following piece, dropping empty pieces; "" splits into code points.
func runeSplitKeepStart(text []rune, sep string) [][]rune {
	if sep == "" {
		out := make([][]rune, len(text))
		for i := range text {
			out[i] = text[i : i+1]
		}
		return out
	}
	sr := []rune(sep)
	var out [][]rune
	start := 0
	for i := 0; i+len(sr) <= len(text); {
		if hasPrefixRunes(text[i:], sr) {
			if i > start {
				out = append(out, text[start:i])
			}
			start = i
			i += len(sr)
			continue
		}
		i++
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// runeLocate assigns offsets as add_start_index does:
// start = text.find(chunk, max(0, prevStart+prevLen-overlap)). Pieces are
// always substrings of text; the search from 0 is a guard that keeps every
// offset inside the text even if that ever failed.
func runeLocate(text string, pieces [][]rune, overlap int) []Chunk {
	// byteAt[i] is the byte offset of code point i.
	byteAt := make([]int, 0, len(text)+1)
	for i := range text {
		byteAt = append(byteAt, i)
	}
	byteAt = append(byteAt, len(text))
	runeAt := func(b int) int { // byte offset (at a rune boundary) -> code point
		lo, hi := 0, len(byteAt)-1
		for lo < hi {
			m := (lo + hi) / 2
			if byteAt[m] < b {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo
	}
	out := make([]Chunk, 0, len(pieces))
	index, prevLen := 0, 0
	for i, p := range pieces {
		c := string(p)
		from := max(0, index+prevLen-overlap)
		from = min(from, len(byteAt)-1)
		at := strings.Index(text[byteAt[from]:], c)
		if at < 0 {
			from = 0
			at = strings.Index(text, c)
		}
		start := runeAt(byteAt[from] + at)
		index, prevLen = start, len(p)
		out = append(out, Chunk{Index: i, Start: start, End: start + len(p), Text: c})
	}
	return out
}

// BenchmarkSplitLarge cuts a 10 MiB text of words: B/op is the splitter's
// allocation (the rune splitter's for comparison).
func BenchmarkSplitLarge(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	for sb.Len() < 10<<20 {
		fmt.Fprintf(&sb, "w%d ", r.IntN(50_000))
		if r.IntN(20) == 0 {
			sb.WriteString(". ")
		}
	}
	text := sb.String()
	for _, c := range []struct {
		name  string
		split func(string, Options) ([]Chunk, error)
	}{{"spans", Split}, {"runes", runeSplit}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.split(text, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
