package contextd

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/persist"
)

// followChanges applies the change-log rows after the watermark wm in
// batches of followBatch: apply receives the distinct entry ids of a batch
// (in first-change order) and the batch's last seq, which becomes the
// watermark once apply succeeds. It returns the new watermark; what, names
// the index in errors.
func followChanges(ctx context.Context, st persist.Store, wm int64, what string, apply func(ids []string, last int64) error) (int64, error) {
	for {
		chs, err := st.Changes(ctx, wm, followBatch)
		if err != nil {
			return wm, fmt.Errorf("%s: read change log: %w", what, err)
		}
		if len(chs) == 0 {
			return wm, nil
		}
		seen := make(map[string]bool, len(chs))
		ids := make([]string, 0, len(chs))
		for _, c := range chs {
			if !seen[c.EntryID] {
				seen[c.EntryID] = true
				ids = append(ids, c.EntryID)
			}
		}
		last := chs[len(chs)-1].Seq
		if err := apply(ids, last); err != nil {
			return wm, err
		}
		wm = last
		if len(chs) < followBatch {
			return wm, nil
		}
	}
}
