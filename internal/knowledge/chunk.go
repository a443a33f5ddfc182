package knowledge

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/persist"
)

// Chunk is one indexed piece of a document.
type Chunk struct {
	Text       string
	Start, End int // byte offsets into the document text
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

// chunkChars and overlapChars approximate the requirements' 512-token
// chunks with 50 tokens of overlap at 4 characters a token (the
// requirements' documented fallback when no BPE tokenizer is used).
const (
	chunkChars   = 2048
	overlapChars = 200
)

// split cuts a document's text into chunks.
func (s *Service) split(_ context.Context, _ record, text string) ([]Chunk, error) {
	parts, err := chunk.Split(text, chunk.Options{Size: chunkChars, Overlap: overlapChars})
	if err != nil {
		return nil, err
	}
	// chunk.Split reports code-point offsets; map them to bytes.
	byteAt := runeOffsets(text)
	out := make([]Chunk, 0, len(parts))
	for _, p := range parts {
		t := strings.TrimSpace(p.Text)
		if t == "" {
			continue
		}
		out = append(out, Chunk{Text: t, Start: byteAt[p.Start], End: byteAt[p.End]})
	}
	return out, nil
}

// runeOffsets maps code-point index i to its byte offset (len+1 entries).
func runeOffsets(s string) []int {
	out := make([]int, 0, len(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// rebuild chunks and embeds the Ready documents again, on the workers'
// count of goroutines: the chunk index lives in memory and is derived
// from the documents' stored text.
func (s *Service) rebuild(ctx context.Context, docs []persist.IndexDoc) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
		ferr error
	)
	for range s.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(docs) || ferr != nil {
					mu.Unlock()
					return
				}
				d := &docs[next]
				next++
				mu.Unlock()
				r, _ := decodeRecord(d.Metadata)
				chunks, err := s.split(ctx, r, d.Text)
				var vecs [][]float32
				if err == nil {
					vecs, err = s.embed(ctx, chunks)
				}
				if err != nil {
					mu.Lock()
					ferr = err
					mu.Unlock()
					return
				}
				at, _ := time.Parse("2006-01-02T15:04:05.000Z", r.IndexedAt)
				m, dims := r.Model, r.Dims
				s.idx.put(d.ID, r.Generation, Ready, chunks, vecs, at, m, dims)
			}
		}()
	}
	wg.Wait()
	return ferr
}
