// Package chunk owns how an entry's text is cut into chunks for embedding
// LangChain's RecursiveCharacterTextSplitter with the
// separators "\n\n", "\n", ". ", " ", "" (keep_separator=start,
// strip_whitespace=true, length = code points), and the start offsets
// LangChain's add_start_index computes. Every offset is in Unicode code
// points, and every chunk's text equals the text between its offsets.
//
//	chunks, err := chunk.Split(text, chunk.Options{}) // 1500 / 150 defaults
//	for _, c := range chunks {
//		embed(c.Text) // c.Start, c.End are code-point offsets into text
//	}
package chunk

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults and limits of CHUNK_SIZE and CHUNK_OVERLAP.
const (
	DefaultSize    = 1500
	DefaultOverlap = 150
	MinSize        = 100
	MaxSize        = 10000
	MaxOverlap     = 500
)

// Aggregation is how an entry's distance is derived from its chunks'.
// `max` (best chunk: minimum distance, ties to the smaller start) is the
// only value the reference accepts.
const AggregationMax = "max"

// ErrInvalid is wrapped by every configuration error of this package.
var ErrInvalid = errors.New("invalid chunking configuration")

// separators are tried in order; "" splits into single code points.
var separators = []string{"\n\n", "\n", ". ", " ", ""}

// Options configure Split. Zero values mean the defaults; use Validate to
// check values that come from the environment.
type Options struct {
	Size    int // CHUNK_SIZE in code points; 0 means DefaultSize
	Overlap int // CHUNK_OVERLAP in code points; 0 means no overlap when Size is set, DefaultOverlap when both are zero
}

func (o Options) resolved() Options {
	if o.Size == 0 && o.Overlap == 0 {
		return Options{Size: DefaultSize, Overlap: DefaultOverlap}
	}
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	return o
}

// Validate checks a chunk size, overlap and aggregation against the
// reference limits (size 100–10000, overlap 0–500 and below size,
// aggregation "max"). An empty aggregation means the default. The
// messages name the settings, not their environment variables: package
// config checks those and names them itself.
func Validate(size, overlap int, aggregation string) error {
	if size < MinSize || size > MaxSize {
		return fmt.Errorf("%w: chunk size must be between %d and %d, got %d", ErrInvalid, MinSize, MaxSize, size)
	}
	if overlap < 0 || overlap > MaxOverlap {
		return fmt.Errorf("%w: chunk overlap must be between 0 and %d, got %d", ErrInvalid, MaxOverlap, overlap)
	}
	if overlap >= size {
		return fmt.Errorf("%w: chunk overlap (%d) must be less than the chunk size (%d)", ErrInvalid, overlap, size)
	}
	if aggregation != "" && aggregation != AggregationMax {
		return fmt.Errorf("%w: chunk aggregation must be %q, got %q", ErrInvalid, AggregationMax, aggregation)
	}
	return nil
}

// Chunk is one piece of the text. Start and End are code-point offsets,
// End exclusive; Text == string([]rune(text)[Start:End]).
type Chunk struct {
	Index int
	Start int
	End   int
	Text  string
}

// Split cuts text into chunks. A text of at most Size code points is one
// chunk [0, len). Text that is not valid UTF-8 is an error (the engine
// validates text before it gets here). Options outside what Validate accepts for size and
// overlap relations (size < 1, overlap < 0 or ≥ size) are an error.
func Split(text string, o Options) ([]Chunk, error) {
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
	s := splitter{size: o.Size, overlap: o.Overlap}
	pieces := s.split([]rune(text), separators)
	if len(pieces) == 0 {
		return []Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	return locate(text, pieces, o.Overlap), nil
}

type splitter struct {
	size, overlap int
}

// split is RecursiveCharacterTextSplitter._split_text: pick the first
// separator present, split keeping it at the start of the following piece,
// merge the short pieces, recurse into the long ones.
func (s *splitter) split(text []rune, seps []string) [][]rune {
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
	for _, p := range splitKeepStart(text, sep) {
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
func (s *splitter) merge(pieces [][]rune) [][]rune {
	var docs [][]rune
	cur := pieces[:0:0]
	total := 0
	for _, p := range pieces {
		if total+len(p) > s.size {
			if len(cur) > 0 {
				if d := joinStrip(cur); len(d) > 0 {
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
	if d := joinStrip(cur); len(d) > 0 {
		docs = append(docs, d)
	}
	return docs
}

// joinStrip concatenates pieces and strips whitespace as Python's
// str.strip does.
func joinStrip(cur [][]rune) []rune {
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

// isPySpace is Python's str.isspace for one code point: Go's White_Space
// set plus the information separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// splitKeepStart is re.split with the separator kept at the start of the
// following piece, dropping empty pieces; "" splits into code points.
func splitKeepStart(text []rune, sep string) [][]rune {
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

func hasPrefixRunes(s, p []rune) bool {
	if len(s) < len(p) {
		return false
	}
	for i := range p {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

func containsRunes(s []rune, sep string) bool {
	sr := []rune(sep)
	for i := 0; i+len(sr) <= len(s); i++ {
		if hasPrefixRunes(s[i:], sr) {
			return true
		}
	}
	return false
}

// locate assigns offsets as add_start_index does:
// start = text.find(chunk, max(0, prevStart+prevLen-overlap)). Pieces are
// always substrings of text; the search from 0 is a guard that keeps every
// offset inside the text even if that ever failed.
func locate(text string, pieces [][]rune, overlap int) []Chunk {
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
