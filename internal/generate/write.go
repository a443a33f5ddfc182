package generate

import (
	"context"
	"errors"

	"github.com/contextd/contextd/persist"
)

// ErrRegenerate rolls back a store whose pre-checked deduplication merge
// did not happen in the transaction: the skipped summary must be generated
// after all (C.6), never stored missing.
var ErrRegenerate = errors.New("deduplication candidate changed; regenerate")

// Reuses reports whether r relies on a deduplication merge (Job.Reuse*):
// a store that ends up inserting a new entry must regenerate instead
// (ErrRegenerate).
func (r *Result) Reuses() bool {
	return r != nil && (r.Outcome == SummaryReused || r.EmbHit == EmbeddingReused)
}

// WriteNodes stores the node summaries of r for entry id inside tx.
func (r *Result) WriteNodes(ctx context.Context, tx persist.NodeSummaryWriter, id string) error {
	if r == nil || !r.ReplaceNodes {
		return nil
	}
	return tx.ReplaceNodeSummaries(ctx, id, r.Nodes)
}

// WriteEmbeddings stores the generated vectors of entry id inside tx. An
// update whose text changed without an embedder removes the stale ones.
func (r *Result) WriteEmbeddings(ctx context.Context, tx persist.VectorWriter, id string, update bool) error {
	if r == nil {
		return nil
	}
	switch {
	case r.Emb != nil && !update:
		return tx.AddEmbeddings(ctx, id, *r.Emb)
	case r.Emb != nil:
		return tx.SetEmbeddings(ctx, id, *r.Emb)
	case update && r.EmbHit == EmbeddingNone:
		return tx.SetEmbeddings(ctx, id, persist.Embeddings{})
	}
	return nil
}

// MergeEmbeddings handles the vectors of a deduplication merge into entry
// id: generated vectors are stored only when the candidate has none (its
// text is the same, so its vectors stand). stored reports a write.
func (r *Result) MergeEmbeddings(ctx context.Context, tx persist.VectorWriter, id string) (stored bool, err error) {
	if r == nil || r.Emb == nil {
		return false, nil
	}
	has, err := tx.HasEmbeddings(ctx, id)
	if err != nil || has {
		return false, err
	}
	return true, tx.SetEmbeddings(ctx, id, *r.Emb)
}
