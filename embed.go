package contextd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/persist"
)

// Embeddings are generated before the write transaction like every model
// artifact (generate.go): the text is cut into chunks (index/chunk), each
// chunk is embedded (at most EMBEDDING_MAX_CONCURRENT calls at once), and
// the vectors are written in the entry's transaction. The database records
// the model and dimension the vectors came from; an engine configured with
// another refuses to start rather than mix incomparable vectors.

// embeddingOutcome says what happened to the vectors of an entry.
type embeddingOutcome int

const (
	embeddingNone      embeddingOutcome = iota // no embedder
	embeddingGenerated                         // vectors were generated
	embeddingReused                            // the dedup candidate's vectors are kept
)

// ReembedCommand is the command that regenerates every stored vector with
// the configured model; the start-up mismatch error names it.
const ReembedCommand = "contextd reembed"

// embedder returns the configured embedder, nil when embeddings are off.
func (e *Engine) embedder() Embedder {
	if e.vec == nil {
		return nil
	}
	return e.vec.embedder
}

// chunkOptions are the configured chunking options; chunking off embeds
// the text whole (one chunk as long as the text).
func (e *Engine) chunkText(text string) ([]chunk.Chunk, error) {
	c := e.cfg.Embedding
	if c.DisableChunking {
		n := len([]rune(text))
		return []chunk.Chunk{{Index: 0, Start: 0, End: n, Text: text}}, nil
	}
	return chunk.Split(text, chunk.Options{Size: c.ChunkSize, Overlap: c.ChunkOverlap})
}

// embedText cuts text into chunks and embeds each of them.
func (e *Engine) embedText(ctx context.Context, text string) (*persist.Embeddings, error) {
	em := e.embedder()
	chunks, err := e.chunkText(text)
	if err != nil {
		return nil, fmt.Errorf("chunking: %w", err)
	}
	out := &persist.Embeddings{Model: em.Model(), Dim: em.Dim(), Chunks: make([]persist.ChunkVector, len(chunks))}
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		out.Chunks[i] = persist.ChunkVector{Index: c.Index, Start: c.Start, End: c.End}
		if len(chunks) == 1 {
			errs[i] = e.embedChunk(ctx, em, c.Text, &out.Chunks[i])
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.embedChunk(ctx, em, c.Text, &out.Chunks[i])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// embedChunk embeds one chunk under the concurrency bound.
func (e *Engine) embedChunk(ctx context.Context, em Embedder, text string, into *persist.ChunkVector) error {
	select {
	case e.vec.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.vec.sem }()
	vs, err := em.Embed(ctx, []string{text})
	if err != nil {
		return err
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

// embedQuery embeds a search query (not chunked).
func (e *Engine) embedQuery(ctx context.Context, q string) ([]float32, error) {
	em := e.embedder()
	var v persist.ChunkVector
	if err := e.embedChunk(ctx, em, q, &v); err != nil {
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

// writeEmbeddings stores the generated vectors of entry id inside tx. An
// update whose text changed without an embedder removes the stale ones.
func (e *Engine) writeEmbeddings(ctx context.Context, tx persist.Tx, id string, g *generation, update bool) error {
	if g == nil {
		return nil
	}
	switch {
	case g.emb != nil && !update:
		return tx.AddEmbeddings(ctx, id, *g.emb)
	case g.emb != nil:
		return tx.SetEmbeddings(ctx, id, *g.emb)
	case update && g.embHit == embeddingNone:
		return tx.SetEmbeddings(ctx, id, persist.Embeddings{})
	}
	return nil
}

// mergeEmbeddings handles the vectors of a deduplication merge into entry
// id: generated vectors are stored only when the candidate has none (its
// text is the same, so its vectors stand). stored reports a write.
func (e *Engine) mergeEmbeddings(ctx context.Context, tx persist.Tx, id string, g *generation) (stored bool, err error) {
	if g == nil || g.emb == nil {
		return false, nil
	}
	has, err := tx.HasEmbeddings(ctx, id)
	if err != nil || has {
		return false, err
	}
	return true, tx.SetEmbeddings(ctx, id, *g.emb)
}

// hasEmbeddings reports whether entry id has stored vectors.
func (e *Engine) hasEmbeddings(ctx context.Context, id string) (bool, error) {
	if e.vec == nil || e.vec.store == nil {
		return false, nil
	}
	docs, err := e.vec.store.VectorDocs(ctx, []string{id})
	if err != nil {
		return false, err
	}
	return len(docs) == 1 && len(docs[0].Chunks) > 0, nil
}

// checkEmbeddingModel compares the configured model with the one the
// stored vectors came from, recording it when the database has none.
func (e *Engine) checkEmbeddingModel(ctx context.Context) error {
	st, em := e.vec.store, e.vec.embedder
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
			return fmt.Errorf("%w: the database holds vectors of %s (%d dimensions) but EMBEDDING_MODEL/EMBEDDING_DIM configure %s (%d dimensions); run `%s` to regenerate them with the configured model, or configure the recorded one",
				ErrEmbeddingModelChanged, got.Model, got.Dim, want.Model, want.Dim, ReembedCommand)
		}
	}
	return st.SetEmbeddingModel(ctx, want)
}
