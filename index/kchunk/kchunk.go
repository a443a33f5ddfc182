package kchunk

import (
	"context"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
)

// Strategy names accepted by Options.Strategy (case-insensitive).
const (
	Semantic      = "Semantic"
	FixedSize     = "FixedSize"
	Recursive     = "Recursive"
	DocumentAware = "DocumentAware" // what Markdown files always get
)

// Defaults of the requirements' ChunkingSettings (B3).
const (
	DefaultStrategy  = Semantic
	DefaultMaxTokens = 512
	DefaultOverlap   = 50
	DefaultMinTokens = 100
	// MaxMaxTokens bounds MaxTokens: no embedder of the engine reads more,
	// and a larger value is a typo rather than a choice.
	MaxMaxTokens = 8192
	// semanticBreakPercentile is SemanticBreakpointAmount with the
	// Percentile method; semanticFallback is 1 − SemanticThreshold (0.5),
	// used below 5 distances.
	semanticBreakPercentile = 95
	semanticFallback        = 0.5
)

// RecursiveSeparators are tried in order by the Recursive strategy (B3).
var RecursiveSeparators = []string{"\n\n", "\n", ". ", " "}

// Options configure Split. The zero value means the requirements'
// defaults: Semantic, 512 tokens, 50 tokens of overlap, 100 tokens minimum.
type Options struct {
	// Strategy is "Semantic", "FixedSize" or "Recursive" (or
	// "DocumentAware"); "" means Semantic. Markdown files (.md, .markdown,
	// .mdx by name) always get DocumentAware.
	Strategy string
	// MaxTokens is the largest chunk in cl100k_base tokens (0 = 512).
	MaxTokens int
	// Overlap is how many tokens consecutive FixedSize/Recursive chunks
	// share (0 = 50); a value ≥ MaxTokens becomes MaxTokens/4 (B3).
	Overlap int
	// MinTokens is MinChunkSize (0 = 100): smaller Recursive and Semantic
	// chunks are merged into a neighbour when the result still fits.
	MinTokens int
	// Embed embeds a batch of texts; Semantic needs it (one call per
	// document with ≥ 2 sentences).
	Embed func(context.Context, []string) ([][]float32, error)
	// Tokenizer counts tokens; nil means the shared cl100k_base instance.
	Tokenizer *Tokenizer
}

// Chunk is one piece of a document.
type Chunk struct {
	// Text is what gets embedded and indexed: text[Start:End], prefixed
	// by HeaderPath and a blank line when HeaderPath is set.
	Text string
	// Start, End are byte offsets into the text given to Split.
	Start, End int
	// Tokens is the cl100k_base token count of Text.
	Tokens int
	// HeaderPath is the Markdown heading breadcrumb ("Guide > Install"),
	// empty for other strategies and for text before the first heading.
	HeaderPath string
	// Embedding is the mean of the chunk's sentence-window embeddings
	// (Semantic only, B3 step 7), nil when the chunk must be embedded anew.
	Embedding []float32
}

// IsMarkdown reports whether a file name gets the heading-aware chunking.
func IsMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// StrategyFor returns the strategy Split uses for a file name and a
// requested strategy: the canonical name ("" → Semantic), DocumentAware
// for Markdown files, an ErrInvalid error for an unknown name. Ingestion
// records it with the chunks (upstream's IndexedWith:ChunkingStrategy).
func StrategyFor(name, strategy string) (string, error) {
	s, err := canonical(strategy)
	if err != nil {
		return "", err
	}
	if IsMarkdown(name) {
		return DocumentAware, nil
	}
	return s, nil
}

func canonical(strategy string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(strategy)) {
	case "", "semantic":
		return Semantic, nil
	case "fixedsize":
		return FixedSize, nil
	case "recursive":
		return Recursive, nil
	case "documentaware":
		return DocumentAware, nil
	}
	return "", fmt.Errorf("%w: chunking strategy %q (want Semantic, FixedSize or Recursive)", cerrors.ErrInvalid, strategy)
}

// resolved is Options with defaults applied and the strategy canonical.
type resolved struct {
	strategy          string
	max, overlap, min int
	embed             func(context.Context, []string) ([][]float32, error)
	tok               *Tokenizer
}

func (o Options) resolve(name string) (resolved, error) {
	r := resolved{max: o.MaxTokens, overlap: o.Overlap, min: o.MinTokens, embed: o.Embed, tok: o.Tokenizer}
	var err error
	if r.strategy, err = StrategyFor(name, o.Strategy); err != nil {
		return r, err
	}
	switch {
	case r.max < 0 || r.max > MaxMaxTokens:
		return r, fmt.Errorf("%w: chunk max tokens %d (want 1-%d)", cerrors.ErrInvalid, r.max, MaxMaxTokens)
	case r.overlap < 0:
		return r, fmt.Errorf("%w: chunk overlap %d (want ≥ 0)", cerrors.ErrInvalid, r.overlap)
	case r.min < 0:
		return r, fmt.Errorf("%w: chunk min tokens %d (want ≥ 0)", cerrors.ErrInvalid, r.min)
	}
	if r.max == 0 {
		r.max = DefaultMaxTokens
	}
	if r.overlap == 0 {
		r.overlap = DefaultOverlap
	}
	if r.overlap >= r.max {
		r.overlap = r.max / 4
	}
	if r.min == 0 {
		r.min = DefaultMinTokens
	}
	if r.min > r.max {
		r.min = r.max
	}
	if r.strategy == Semantic && r.embed == nil {
		return r, fmt.Errorf("%w: semantic chunking needs an embedder", cerrors.ErrInvalid)
	}
	if r.tok == nil {
		t, err := defaultTokenizer()
		if err != nil {
			return r, err
		}
		r.tok = t
	}
	return r, nil
}

// Split cuts a document's extracted text into chunks with the strategy of
// o, or the heading-aware one when name is a Markdown file. Chunks come in
// document order; empty or whitespace-only text gives no chunks. Bad
// options or text that is not valid UTF-8 (extractors always produce
// valid UTF-8) give an error wrapping ErrInvalid; an embedder failure is
// returned wrapped; a cancelled ctx stops the work.
func Split(ctx context.Context, name, text string, o Options) ([]Chunk, error) {
	r, err := o.resolve(name)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("%w: document text is not valid UTF-8", cerrors.ErrInvalid)
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	c := &chunker{ctx: ctx, text: text, r: r, cache: pieceCache{}}
	var spans []span
	switch r.strategy {
	case FixedSize:
		spans, err = c.fixed(span{0, len(text)})
	case Recursive:
		spans, err = c.recursive(span{0, len(text)})
	case Semantic:
		return c.semantic()
	case DocumentAware:
		return c.markdown()
	}
	if err != nil {
		return nil, err
	}
	return c.chunks(spans, ""), nil
}

// chunker carries one Split call's state.
type chunker struct {
	ctx   context.Context
	text  string
	r     resolved
	cache pieceCache // merges of the pieces seen in this call
}

func (c *chunker) tokens(s span) int { return c.count(c.text[s.start:s.end]) }

func (c *chunker) count(s string) int { return c.r.tok.count(s, c.cache) }

func (c *chunker) indexAt(s string, n int) int { return c.r.tok.indexAt(s, n, c.cache) }

// chunks turns spans into Chunks, prefixing a breadcrumb when given.
func (c *chunker) chunks(spans []span, header string) []Chunk {
	out := make([]Chunk, 0, len(spans))
	for _, s := range spans {
		t := c.text[s.start:s.end]
		if header != "" {
			t = header + "\n\n" + t
		}
		out = append(out, Chunk{Text: t, Start: s.start, End: s.end, Tokens: c.count(t), HeaderPath: header})
	}
	return out
}

// trim narrows s to exclude leading and trailing white space: Unicode's,
// as Split's test for a blank text (strings.TrimSpace) has it. With ASCII
// white space only, a text of one no-break space (U+00A0) gave no chunk
// while " \u00a0x" gave a chunk starting with it (FuzzSplit found it).
func (c *chunker) trim(s span) span {
	for s.start < s.end {
		r, n := utf8.DecodeRuneInString(c.text[s.start:s.end])
		if !unicode.IsSpace(r) {
			break
		}
		s.start += n
	}
	for s.end > s.start {
		r, n := utf8.DecodeLastRuneInString(c.text[s.start:s.end])
		if !unicode.IsSpace(r) {
			break
		}
		s.end -= n
	}
	return s
}
