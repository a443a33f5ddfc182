package generate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// Embeddings are generated before the write transaction like every model
// artifact (generate.go): the text is cut into chunks (index/chunk), each
// chunk is embedded (at most EMBEDDING_MAX_CONCURRENT calls at once), and
// the vectors are written in the entry's transaction. The database records
// the model and dimension the vectors came from; an engine configured with
// another refuses to start rather than mix incomparable vectors.

// EmbeddingOptions configure embedding generation (C.10). The zero value
// embeds nothing.
type EmbeddingOptions struct {
	// Embedder generates vectors; nil disables embedding generation.
	Embedder Embedder
	// MaxConcurrent bounds concurrent embedding calls
	// (EMBEDDING_MAX_CONCURRENT, default 3).
	MaxConcurrent int
	// DisableChunking embeds each text whole (ENABLE_CHUNKING=false).
	DisableChunking bool
	// ChunkSize and ChunkOverlap are CHUNK_SIZE and CHUNK_OVERLAP in code
	// points (defaults 1500 and 150).
	ChunkSize, ChunkOverlap int
	// Compression stores the vectors as TurboQuant codes (C.14; the zero
	// value is on: 4-bit mse, codes only). They are compressed right
	// after embedding, before the write transaction.
	Compression quant.Settings
}

// ReembedCommand is the command that regenerates every stored vector with
// the configured model; the start-up mismatch error names it.
const ReembedCommand = "contextd migrate reembed"

// VectorReader reads stored vectors (persist.VectorStore has it).
type VectorReader interface {
	VectorDocs(ctx context.Context, ids []string) ([]persist.VectorDoc, error)
}

// chunkText cuts text with the configured chunking options; chunking off
// embeds the text whole (one chunk as long as the text).
func (g *Generator) chunkText(text string) ([]chunk.Chunk, error) {
	c := g.opts.Embedding
	if c.DisableChunking {
		n := len([]rune(text))
		return []chunk.Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	return chunk.Split(text, chunk.Options{Size: c.ChunkSize, Overlap: c.ChunkOverlap})
}

// EmbedText cuts text into chunks and embeds each of them. It needs an
// embedder.
func (g *Generator) EmbedText(ctx context.Context, text string) (*persist.Embeddings, error) {
	em := g.Embedder()
	chunks, err := g.chunkText(text)
	if err != nil {
		return nil, fmt.Errorf("chunking: %w", err)
	}
	out := &persist.Embeddings{Model: em.Model(), Dim: em.Dim(), Chunks: make([]persist.ChunkVector, len(chunks))}
	// A fixed number of workers, as many as may embed at once, rather than
	// a goroutine a chunk: a 10 MiB text has about 7,700 chunks, and their
	// goroutines, each parked on the semaphore with its stack, were tens of
	// megabytes of a large batch's peak.
	errs := make([]error, len(chunks))
	for i, c := range chunks {
		out.Chunks[i] = persist.ChunkVector{Index: c.Index, Start: c.Start, End: c.End}
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(chunks) {
				return
			}
			errs[i] = g.embedChunk(ctx, em, chunks[i].Text, false, &out.Chunks[i])
			if errs[i] != nil {
				next.Store(int64(len(chunks))) // the call fails: stop the others
			}
		}
	}
	workers := min(len(chunks), cap(g.embedSem))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := g.codec.Compress(out); err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	return out, nil
}

// embedChunk embeds one chunk, or a search query (query: through the
// embedder's EmbedQuery when it has one), under the concurrency bound.
func (g *Generator) embedChunk(ctx context.Context, em Embedder, text string, query bool, into *persist.ChunkVector) error {
	select {
	case g.embedSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.embedSem }()
	var vs [][]float32
	if qe, ok := em.(model.QueryEmbedder); ok && query {
		v, err := qe.EmbedQuery(ctx, text)
		if err != nil {
			return err
		}
		vs = [][]float32{v}
	} else {
		var err error
		if vs, err = em.Embed(ctx, []string{text}); err != nil {
			return err
		}
	}
	if len(vs) != 1 {
		return fmt.Errorf("embedding provider returned %d vectors for 1 text", len(vs))
	}
	if err := checkVector(vs[0], em.Dim()); err != nil {
		return err
	}
	into.Vector = vs[0]
	return nil
}

// EmbedQuery embeds a search query (not chunked), under the same
// concurrency bound as the entries. It needs an embedder.
func (g *Generator) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	var v persist.ChunkVector
	if err := g.embedChunk(ctx, g.Embedder(), q, true, &v); err != nil {
		return nil, err
	}
	return v.Vector, nil
}

// checkVector rejects a vector of the wrong length or with a value that
// is not a finite number.
func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("embedding has %d dimensions, expected %d", len(v), dim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("embedding holds a value that is not a finite number")
		}
	}
	return nil
}

// hasEmbeddings reports whether entry id has stored vectors.
func hasEmbeddings(ctx context.Context, st VectorReader, id string) (bool, error) {
	docs, err := st.VectorDocs(ctx, []string{id})
	if err != nil {
		return false, err
	}
	return len(docs) == 1 && len(docs[0].Chunks) > 0, nil
}

// ModelStore records the model of the stored vectors and their
// compression (persist.Store has it).
type ModelStore interface {
	compress.Store
	EmbeddingModel(ctx context.Context) (m persist.EmbeddingModel, ok bool, err error)
	SetEmbeddingModel(ctx context.Context, m persist.EmbeddingModel) error
	ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]persist.VectorDoc, error)
}

// Codec is the compression of stored vectors (nil: off); CheckModel
// reports an error making it.
func (g *Generator) Codec() *compress.Codec { return g.codec }

// CheckModel compares the configured model with the one the stored
// vectors came from, recording it when the database has none, then the
// configured compression with the stored form of the vectors
// (compress.Check). A model mismatch with vectors present wraps
// cerrors.ErrEmbeddingModelChanged and names ReembedCommand; a compression
// mismatch wraps cerrors.ErrCompressionChanged. It needs an embedder.
func (g *Generator) CheckModel(ctx context.Context, st ModelStore) error {
	if err := g.checkModel(ctx, st); err != nil {
		return err
	}
	if g.codecErr != nil {
		return g.codecErr
	}
	if err := compress.Check(ctx, st, g.codec); err != nil {
		return err
	}
	g.checked.Store(true)
	return nil
}

// CompressionStatus is get_statistics' compression block.
func (g *Generator) CompressionStatus() compress.Status {
	return compress.StatusOf(g.codec, g.checked.Load())
}

func (g *Generator) checkModel(ctx context.Context, st ModelStore) error {
	em := g.Embedder()
	want := persist.EmbeddingModel{Model: em.Model(), Dim: em.Dim()}
	got, ok, err := st.EmbeddingModel(ctx)
	if err != nil {
		return fmt.Errorf("read embedding model: %w", err)
	}
	if ok && got == want {
		return nil
	}
	if ok {
		some, err := st.ScanVectorDocs(ctx, "", 1)
		if err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		if len(some) > 0 {
			return fmt.Errorf("%w: the database holds vectors of %s (%d dimensions) but EMBEDDING_MODEL/EMBEDDING_DIM (or EMBEDDING_MODEL_PATH) configure %s (%d dimensions); run `%s` to regenerate them with the configured model, or configure the recorded one",
				cerrors.ErrEmbeddingModelChanged, got.Model, got.Dim, want.Model, want.Dim, ReembedCommand)
		}
	}
	return st.SetEmbeddingModel(ctx, want)
}
