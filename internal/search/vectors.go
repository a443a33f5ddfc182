package search

import (
	"context"
	"fmt"
	"io"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// VectorOptions configures the vector leg of semantic search.
type VectorOptions struct {
	// Backend is SEARCH_BACKEND: InProcess (default, our HNSW) or Native
	// (the database's own vector search).
	Backend string
	// Dim is the embedder's number of dimensions.
	Dim int
	// Dir holds the in-process graph snapshot; "" keeps it in memory.
	Dir string
	// Progress receives reconcile progress (default os.Stderr).
	Progress io.Writer
	// Compression configures the in-process graph's codes (quant.Settings:
	// the zero value is on, 4-bit mse, codes only). The native backend
	// ignores it: sqlite-vec searches the float32 vectors, which the engine
	// keeps beside the codes with SEARCH_BACKEND=native.
	Compression quant.Settings
}

// Vectors is the vector leg: the backend serving nearest-neighbour
// searches over the stored chunk vectors.
type Vectors struct {
	st          persist.Store
	unavailable string // why search cannot run, "" when it can
	native      persist.NativeVectors
	ix          *vecIndex
}

// OpenVectors sets up the configured backend; the in-process index joins
// feed. A store without native vector search leaves the leg unavailable;
// an unknown backend is an ErrInvalid error.
func OpenVectors(ctx context.Context, st persist.Store, feed *follow.Feed, o VectorOptions) (*Vectors, error) {
	vs := &Vectors{st: st}
	if o.Backend == "" {
		o.Backend = InProcess
	}
	switch o.Backend {
	case Native:
		nv := st.Native().Vectors
		if nv == nil {
			vs.unavailable = "Semantic search is not available: the storage backend has no native vector search (SEARCH_BACKEND=native)"
			return vs, nil
		}
		if err := nv.EnsureVectorTable(ctx, o.Dim); err != nil {
			return nil, fmt.Errorf("native vector table: %w", err)
		}
		vs.native = nv
		return vs, nil
	case InProcess:
	default:
		return nil, cerrors.Invalidf("vector backend must be in-process or native, got %q", o.Backend)
	}
	if nv := st.Native().Vectors; nv != nil {
		if err := nv.DropVectorTable(ctx); err != nil {
			return nil, fmt.Errorf("native vector table: %w", err)
		}
	}
	ix, err := openVecIndex(ctx, st, feed, o.Dim, o.Compression, o.Dir, progressOrStderr(o.Progress))
	if err != nil {
		return nil, err
	}
	vs.ix = ix
	return vs, nil
}

// Unavailable says why the leg cannot run ("" when it can).
func (vs *Vectors) Unavailable() string { return vs.unavailable }

// Close stops the in-process index and writes its snapshot.
func (vs *Vectors) Close() error {
	if vs.ix == nil {
		return nil
	}
	err := vs.ix.close()
	vs.ix = nil
	return err
}

// VectorQuery is one vector ranking.
type VectorQuery struct {
	// Filter holds the structural filters; its metadata conditions are
	// the store's to evaluate.
	persist.Filter
	Vector  []float32 // the query's embedding
	Depth   int       // the most entries returned
	Explain bool
}

// VectorHit is one entry of a vector ranking: its best chunk.
type VectorHit struct {
	ID         string
	Distance   float64
	Chunk      int
	Start, End int
}

// Rank computes the one ordering of at most q.Depth entries nearest to
// q.Vector among the entries acc may read that pass q.Filter (best chunk
// per entry; distance ASC, id ASC), with the plan when q.Explain.
func (vs *Vectors) Rank(ctx context.Context, acc persist.Access, q VectorQuery) ([]VectorHit, string, error) {
	if vs.native != nil {
		res, err := vs.native.VectorSearch(ctx, acc, persist.VectorQuery{Filter: q.Filter, Vector: q.Vector, Limit: q.Depth, Explain: q.Explain})
		if err != nil {
			return nil, "", fmt.Errorf("semantic search: %w", err)
		}
		out := make([]VectorHit, len(res.Hits))
		for i, h := range res.Hits {
			out[i] = VectorHit{ID: h.ID, Distance: h.Distance, Chunk: h.Chunk, Start: h.Start, End: h.End}
		}
		return out, res.Plan, nil
	}
	if err := vs.ix.follow.CatchUp(ctx); err != nil {
		return nil, "", err
	}
	pf := q.Filter
	if len(pf.Meta) > 0 {
		ids, err := vs.st.FilterIDs(ctx, acc, pf)
		if err != nil {
			return nil, "", fmt.Errorf("semantic search: %w", err)
		}
		pf.IDs = ids
	}
	allowed := vs.ix.allowedSet(acc, pf)
	hits, err := vs.ix.search(ctx, q.Vector, allowed, q.Depth)
	if err != nil {
		return nil, "", err
	}
	plan := ""
	if q.Explain {
		plan = fmt.Sprintf("in-process HNSW per access scope over the chunks of %d allowed entries (small scopes and selective sets measured exactly); best chunk per entry", allowed.GetCardinality())
	}
	return hits, plan, nil
}

// Counts reports the entries acc may read that the in-process index holds
// vectors of, and their chunks (zero with another backend).
func (vs *Vectors) Counts(acc persist.Access) (entries, chunks int) {
	if vs.ix == nil {
		return 0, 0
	}
	return vs.ix.counts(acc)
}
