package retrieve

import (
	"context"
	"io"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// Semantic is the engine's embedding and vector-search state.
type Semantic struct {
	Embedder model.Embedder
	// Backend is semantic search's SEARCH_BACKEND.
	Backend string
	// Enabled is ENABLE_SEMANTIC_SEARCH != false with an embedder;
	// Unavailable says why search cannot run ("" when it can).
	Enabled     bool
	Unavailable string
	Vectors     *search.Vectors // the vector leg; nil when it is not open
}

// SemanticOptions configure OpenSemantic: the embedding configuration and
// what the engine derives from it.
type SemanticOptions struct {
	Embedder                model.Embedder
	DisableSemantic         bool // ENABLE_SEMANTIC_SEARCH=false
	DisableChunking         bool
	ChunkSize, ChunkOverlap int
	// Backend is the vector SEARCH_BACKEND; "" follows FullTextBackend,
	// and search.InProcess when that is "" too.
	Backend, FullTextBackend string
	Dir                      string // the snapshot folder; "" keeps the index in memory
	// Reembed opens no vector index: the vectors are being regenerated.
	Reembed     bool
	Progress    io.Writer
	Compression quant.Settings
	// CheckModel fails when the stored vectors are another model's.
	CheckModel func(context.Context) error
}

// OpenSemantic checks the embedding configuration and opens the
// configured vector backend. Without an embedder there is no semantic
// state (nil); a store that cannot serve the backend leaves search
// unavailable (Unavailable says why); an invalid configuration is an
// error.
func OpenSemantic(ctx context.Context, st persist.Store, feed *follow.Feed, o SemanticOptions) (*Semantic, error) {
	if o.Embedder == nil {
		return nil, nil
	}
	if !o.DisableChunking && (o.ChunkSize != 0 || o.ChunkOverlap != 0) {
		size := o.ChunkSize
		if size == 0 {
			size = chunk.DefaultSize
		}
		if err := chunk.Validate(size, o.ChunkOverlap, ""); err != nil {
			return nil, cerrors.Invalidf("%s", err)
		}
	}
	sm := &Semantic{Embedder: o.Embedder, Backend: o.Backend}
	if sm.Backend == "" {
		sm.Backend = o.FullTextBackend
	}
	if sm.Backend == "" {
		sm.Backend = search.InProcess
	}
	if o.Reembed {
		sm.Unavailable = "Semantic search is off while the vectors are regenerated (contextd migrate reembed)"
		return sm, nil
	}
	if err := o.CheckModel(ctx); err != nil {
		return nil, err
	}
	sm.Enabled = !o.DisableSemantic
	if !sm.Enabled {
		sm.Unavailable = "Semantic search is disabled (ENABLE_SEMANTIC_SEARCH=false)"
		return sm, nil
	}
	if w, ok := o.Embedder.(interface{ Warm() }); ok {
		go w.Warm() // a local model loads beside the indexes
	}
	vs, err := search.OpenVectors(ctx, st, feed, search.VectorOptions{
		Backend: sm.Backend, Dim: o.Embedder.Dim(), Dir: o.Dir, Progress: o.Progress, Compression: o.Compression,
	})
	if err != nil {
		return nil, err
	}
	sm.Vectors, sm.Unavailable = vs, vs.Unavailable()
	return sm, nil
}

// Available reports whether semantic search can run.
func (sm *Semantic) Available() bool {
	return sm != nil && sm.Enabled && sm.Unavailable == ""
}

// Leg returns the vector leg, nil when it is not open.
func (sm *Semantic) Leg() *search.Vectors {
	if sm == nil {
		return nil
	}
	return sm.Vectors
}

// Close stops the vector index and writes its snapshot.
func (sm *Semantic) Close() error {
	if sm == nil || sm.Vectors == nil {
		return nil
	}
	err := sm.Vectors.Close()
	sm.Vectors = nil
	return err
}
