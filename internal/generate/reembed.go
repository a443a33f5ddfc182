package generate

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/persist"
)

// reembedBatch is the number of entries embedded and rewritten per
// transaction, so an interrupted run loses little and can be repeated.
const reembedBatch = 100

// reembedEvery is the longest the progress stays silent: a model on the
// CPU can take minutes over 1000 entries (a MiniLM-L6-sized local model
// embeds about a dozen 128-token chunks per CPU-second).
const reembedEvery = 10 * time.Second

// ReembedStore is what Reembed reads and writes (persist.Store has it).
type ReembedStore interface {
	ScanIndexDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error)
	Write(ctx context.Context, fn func(tx persist.Tx) error) error
	SetEmbeddingModel(ctx context.Context, m persist.EmbeddingModel) error
}

// Reembed regenerates the vectors of every stored entry with the
// configured embedder and records its model. Entries are rewritten in
// transactions of 100, so an interrupted run can simply be repeated;
// progress gets a line every 1000 entries or 10 seconds, with the rate,
// and a final one (nil discards
// them). It returns the number of entries embedded and needs an embedder.
func (g *Generator) Reembed(ctx context.Context, st ReembedStore, progress io.Writer) (int, error) {
	if progress == nil {
		progress = io.Discard
	}
	began := time.Now()
	said := began
	after, n := "", 0
	for {
		docs, err := st.ScanIndexDocs(ctx, after, reembedBatch)
		if err != nil {
			return n, fmt.Errorf("reembed: %w", err)
		}
		if len(docs) == 0 {
			break
		}
		// The batch's entries are embedded at once, under the
		// EMBEDDING_MAX_CONCURRENT bound every chunk takes: one entry at a
		// time left the bound unused for entries of one chunk.
		embs := make([]*persist.Embeddings, len(docs))
		errs := make([]error, len(docs))
		var wg sync.WaitGroup
		for i := range docs {
			wg.Go(func() { embs[i], errs[i] = g.EmbedText(ctx, docs[i].Text) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
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
		if n%1000 == 0 || time.Since(said) >= reembedEvery {
			el := time.Since(began)
			fmt.Fprintf(progress, "contextd: reembed: %d entries in %s (%.1f entries/s)\n", n, el.Round(time.Second), float64(n)/el.Seconds())
			said = time.Now()
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
