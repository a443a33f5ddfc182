package knowledge

import (
	"context"
	"strings"

	"github.com/contextd/contextd/index/kchunk"
)

// Chunk is one indexed piece of a document.
type Chunk struct {
	Text       string
	Start, End int // byte offsets into the document text
	// vec is the chunker's own embedding (Semantic), nil when the chunk
	// must be embedded.
	vec []float32
}

// Strategies are the chunking strategies upload_file accepts.
var Strategies = []string{"Semantic", "FixedSize", "Recursive"}

// ParseStrategy reads a strategy name case-insensitively; anything else,
// blank included, is Semantic (requirements A5).
func ParseStrategy(s string) string {
	for _, x := range Strategies {
		if strings.EqualFold(strings.TrimSpace(s), x) {
			return x
		}
	}
	return "Semantic"
}

// split cuts a document's text into chunks with index/kchunk: the
// requirements' defaults (512 cl100k_base tokens, 50 of overlap, 100
// minimum), Markdown always heading-aware. Semantic needs an embedder;
// without one it falls back to Recursive.
func (s *Service) split(ctx context.Context, r record, text string) ([]Chunk, error) {
	o := kchunk.Options{Strategy: ParseStrategy(r.Strategy)}
	if s.emb != nil {
		o.Embed = s.emb.Embed
	} else if o.Strategy == "Semantic" {
		o.Strategy = "Recursive"
	}
	parts, err := kchunk.Split(ctx, r.Name, text, o)
	if err != nil {
		return nil, err
	}
	out := make([]Chunk, 0, len(parts))
	for _, p := range parts {
		if strings.TrimSpace(p.Text) == "" {
			continue
		}
		out = append(out, Chunk{Text: p.Text, Start: p.Start, End: p.End, vec: p.Embedding})
	}
	return out, nil
}
