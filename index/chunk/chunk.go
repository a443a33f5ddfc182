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
	"math"
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
//
// Pieces are spans of one code-point slice of the text, and a chunk's
// Text is a substring of text: the splitter used to copy every piece and
// every joined chunk into slices of their own and to map code points to
// bytes with a table of one int per code point, about 200 MB of
// transient memory for a 10 MiB text (20 bytes per byte); it now holds
// the code points (4 bytes per byte), the spans (8 bytes per piece) and a
// byte offset per 64 code points.
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
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: text of %d code points is too long to chunk", ErrInvalid, n)
	}
	s := splitter{size: o.Size, overlap: o.Overlap, text: []rune(text)}
	pieces := s.split(piece{0, int32(n)}, separators)
	if len(pieces) == 0 {
		return []Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	return locate(text, s.text, pieces, o.Overlap), nil
}

// piece is the code points [s, e) of the text being split.
type piece struct{ s, e int32 }

func (p piece) len() int { return int(p.e - p.s) }

type splitter struct {
	size, overlap int
	text          []rune
}

// split is RecursiveCharacterTextSplitter._split_text: pick the first
// separator present, split keeping it at the start of the following piece,
// merge the short pieces, recurse into the long ones.
func (s *splitter) split(text piece, seps []string) []piece {
	sep := seps[len(seps)-1]
	var rest []string
	for i, c := range seps {
		if c == "" {
			sep = c
			break
		}
		if containsRunes(s.text[text.s:text.e], c) {
			sep = c
			rest = seps[i+1:]
			break
		}
	}
	var out, good []piece
	for _, p := range splitKeepStart(s.text, text, sep) {
		if p.len() < s.size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			out = append(out, s.merge(good)...)
			good = good[:0]
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
func (s *splitter) merge(pieces []piece) []piece {
	var docs []piece
	cur := pieces[:0:0]
	total := 0
	for _, p := range pieces {
		if total+p.len() > s.size {
			if len(cur) > 0 {
				if d := s.joinStrip(cur); d.len() > 0 {
					docs = append(docs, d)
				}
				for total > s.overlap || (total+p.len() > s.size && total > 0) {
					total -= cur[0].len()
					cur = cur[1:]
				}
			}
		}
		cur = append(cur, p)
		total += p.len()
	}
	if d := s.joinStrip(cur); d.len() > 0 {
		docs = append(docs, d)
	}
	return docs
}

// joinStrip joins contiguous pieces and strips whitespace as Python's
// str.strip does.
func (s *splitter) joinStrip(cur []piece) piece {
	i, j := cur[0].s, cur[len(cur)-1].e
	for i < j && isPySpace(s.text[i]) {
		i++
	}
	for j > i && isPySpace(s.text[j-1]) {
		j--
	}
	return piece{i, j}
}

// isPySpace is Python's str.isspace for one code point: Go's White_Space
// set plus the information separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// splitKeepStart is re.split over the span with the separator kept at the
// start of the following piece, dropping empty pieces; "" splits into
// code points.
func splitKeepStart(runes []rune, text piece, sep string) []piece {
	if sep == "" {
		out := make([]piece, 0, text.len())
		for i := text.s; i < text.e; i++ {
			out = append(out, piece{i, i + 1})
		}
		return out
	}
	sr := []rune(sep)
	var out []piece
	start := text.s
	for i := text.s; int(i)+len(sr) <= int(text.e); {
		if hasPrefixRunes(runes[i:text.e], sr) {
			if i > start {
				out = append(out, piece{start, i})
			}
			start = i
			i += int32(len(sr))
			continue
		}
		i++
	}
	if start < text.e {
		out = append(out, piece{start, text.e})
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

// checkpointEvery is the code points between two recorded byte offsets.
const checkpointEvery = 64

// offsets maps code points to byte offsets of a valid UTF-8 text and back
// with a byte offset recorded every checkpointEvery code points.
type offsets struct {
	text  string
	every []int // every[k] is the byte offset of code point k*checkpointEvery
}

func newOffsets(text string, n int) offsets {
	o := offsets{text: text, every: make([]int, 0, n/checkpointEvery+1)}
	i := 0
	for b := range text {
		if i%checkpointEvery == 0 {
			o.every = append(o.every, b)
		}
		i++
	}
	if i%checkpointEvery == 0 {
		o.every = append(o.every, len(text))
	}
	return o
}

// byteAt is the byte offset of code point r (0 <= r <= the text's length).
func (o offsets) byteAt(r int) int {
	b := o.every[r/checkpointEvery]
	for range r % checkpointEvery {
		_, w := utf8.DecodeRuneInString(o.text[b:])
		b += w
	}
	return b
}

// runeAt is the code point at byte offset b (a code-point boundary).
func (o offsets) runeAt(b int) int {
	lo, hi := 0, len(o.every)-1
	for lo < hi { // the last checkpoint at or before b
		m := (lo + hi + 1) / 2
		if o.every[m] <= b {
			lo = m
		} else {
			hi = m - 1
		}
	}
	r, at := lo*checkpointEvery, o.every[lo]
	for at < b {
		_, w := utf8.DecodeRuneInString(o.text[at:])
		at += w
		r++
	}
	return r
}

// locate assigns offsets as add_start_index does:
// start = text.find(chunk, max(0, prevStart+prevLen-overlap)). Pieces are
// always substrings of text; the search from 0 is a guard that keeps every
// offset inside the text even if that ever failed.
func locate(text string, runes []rune, pieces []piece, overlap int) []Chunk {
	off := newOffsets(text, len(runes))
	out := make([]Chunk, 0, len(pieces))
	index, prevLen := 0, 0
	for i, p := range pieces {
		c := text[off.byteAt(int(p.s)):off.byteAt(int(p.e))]
		from := max(0, index+prevLen-overlap)
		from = min(from, len(runes))
		fromByte := off.byteAt(from)
		at := strings.Index(text[fromByte:], c)
		if at < 0 {
			fromByte = 0
			at = strings.Index(text, c)
		}
		start := off.runeAt(fromByte + at)
		index, prevLen = start, p.len()
		b := fromByte + at
		out = append(out, Chunk{Index: i, Start: start, End: start + p.len(), Text: text[b : b+len(c)]})
	}
	return out
}
