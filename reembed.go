package contextd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/contextd/contextd/persist"
)

// Reembed regenerates the vectors of every stored entry with the
// configured embedder and records its model, the migration after a change
// of EMBEDDING_MODEL or EMBEDDING_DIM (the start-up check names it). The
// engine must be opened with EmbeddingConfig.Reembed, which skips that
// check and keeps the vector index closed; no other process should write
// meanwhile. Entries are rewritten in transactions of 100, so an
// interrupted run can simply be repeated. It returns the number of
// entries embedded.
func (e *Engine) Reembed(ctx context.Context, progress io.Writer) (int, error) {
	if e.vec == nil || e.vec.store == nil {
		return 0, errors.New("reembed: no embedding provider is configured (ENABLE_EMBEDDING_GENERATION, EMBEDDING_PROVIDER)")
	}
	if !e.cfg.Embedding.Reembed {
		return 0, errors.New("reembed: the engine was not opened for re-embedding (EmbeddingConfig.Reembed)")
	}
	if progress == nil {
		progress = io.Discard
	}
	began := time.Now()
	after, n := "", 0
	for {
		docs, err := e.st.ScanIndexDocs(ctx, after, 100)
		if err != nil {
			return n, fmt.Errorf("reembed: %w", err)
		}
		if len(docs) == 0 {
			break
		}
		embs := make([]*persist.Embeddings, len(docs))
		for i := range docs {
			if embs[i], err = e.embedText(ctx, docs[i].Text); err != nil {
				return n, fmt.Errorf("reembed: entry %s: %w", docs[i].ID, err)
			}
		}
		err = e.st.Write(ctx, func(tx persist.Tx) error {
			for i := range docs {
				if err := tx.SetEmbeddings(ctx, docs[i].ID, *embs[i]); err != nil {
					return fmt.Errorf("entry %s: %w", docs[i].ID, err)
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("reembed: %w", err)
		}
		n += len(docs)
		after = docs[len(docs)-1].ID
		if n%1000 == 0 {
			fmt.Fprintf(progress, "contextd: reembed: %d entries\n", n)
		}
	}
	em := e.vec.embedder
	if err := e.vec.store.SetEmbeddingModel(ctx, persist.EmbeddingModel{Model: em.Model(), Dim: em.Dim()}); err != nil {
		return n, fmt.Errorf("reembed: record the model: %w", err)
	}
	fmt.Fprintf(progress, "contextd: reembed: %d entries embedded with %s (%d dimensions) in %s\n", n, em.Model(), em.Dim(), time.Since(began).Round(time.Millisecond))
	return n, nil
}
