package generate

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/persist"
)

// reembedBatch is the number of entries embedded and rewritten per
// transaction, so an interrupted run loses little and can be repeated.
const reembedBatch = 100

// ReembedStore is what Reembed reads and writes (persist.Store has it).
type ReembedStore interface {
	ScanIndexDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error)
	Write(ctx context.Context, fn func(tx persist.Tx) error) error
	SetEmbeddingModel(ctx context.Context, m persist.EmbeddingModel) error
}

// Reembed regenerates the vectors of every stored entry with the
// configured embedder and records its model. Entries are rewritten in
// transactions of 100, so an interrupted run can simply be repeated;
// progress gets a line every 1000 entries and a final one (nil discards
// them). It returns the number of entries embedded and needs an embedder.
func (g *Generator) Reembed(ctx context.Context, st ReembedStore, progress io.Writer) (int, error) {
	if progress == nil {
		progress = io.Discard
	}
	began := time.Now()
	after, n := "", 0
	for {
		docs, err := st.ScanIndexDocs(ctx, after, reembedBatch)
		if err != nil {
			return n, fmt.Errorf("reembed: %w", err)
		}
		if len(docs) == 0 {
			break
		}
		embs := make([]*persist.Embeddings, len(docs))
		for i := range docs {
			if embs[i], err = g.EmbedText(ctx, docs[i].Text); err != nil {
				return n, fmt.Errorf("reembed: entry %s: %w", docs[i].ID, err)
			}
		}
		err = st.Write(ctx, func(tx persist.Tx) error {
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
	em := g.Embedder()
	if err := st.SetEmbeddingModel(ctx, persist.EmbeddingModel{Model: em.Model(), Dim: em.Dim()}); err != nil {
		return n, fmt.Errorf("reembed: record the model: %w", err)
	}
	// Every vector was rewritten in the configured form (EmbedText
	// compresses): record its provenance, or none with compression off.
	if err := compress.Record(ctx, st, g.codec); err != nil {
		return n, fmt.Errorf("reembed: %w", err)
	}
	fmt.Fprintf(progress, "contextd: reembed: %d entries embedded with %s (%d dimensions) in %s\n", n, em.Model(), em.Dim(), time.Since(began).Round(time.Millisecond))
	return n, nil
}
