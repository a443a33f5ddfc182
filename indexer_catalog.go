package contextd

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/index"
)

// loadCatalog fills the in-memory catalog (the readable-set bitmaps of
// the prefilter) of an index opened from its snapshot, from SQL. The scan
// may be newer than the snapshot's watermark; the catch-up that follows
// re-applies the newer rows to both, which is idempotent.
func (f *follower) loadCatalog(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	began := time.Now()
	after, n := "", 0
	for {
		docs, err := f.st.ScanAccessDocs(ctx, after, followBatch)
		if err != nil {
			return fmt.Errorf("full-text index: load access catalog: %w", err)
		}
		if len(docs) == 0 {
			break
		}
		ups := make([]index.Doc, len(docs))
		for i := range docs {
			ups[i] = docOf(&docs[i])
			ups[i].Text = "" // the catalog keeps access and filter fields only
		}
		f.ix.LoadCatalog(ups)
		n += len(docs)
		after = docs[len(docs)-1].ID
	}
	if d := time.Since(began); d > time.Second {
		fmt.Fprintf(f.progress, "contextd: full-text index: loaded the access catalog of %d entries in %s\n", n, d.Round(time.Millisecond))
	}
	return nil
}
