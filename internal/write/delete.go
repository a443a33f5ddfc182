package write

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// DeleteInput is the input of delete_context: exactly one of ContextIDs
// and ThreadID.
type DeleteInput = api.DeleteRequest

// DeleteBatchInput is the input of delete_context_batch; the criteria
// combine with AND.
type DeleteBatchInput = api.DeleteBatchRequest

// Deleted is the result of Delete and DeleteBatch.
type Deleted struct {
	Count int
	// Criteria describe the criteria of a batch delete, in order.
	Criteria []string
	Message  string
}

func deleted(n int, criteria []string) Deleted {
	return Deleted{Count: n, Criteria: criteria, Message: fmt.Sprintf("Successfully deleted %d context entries", n)}
}

// Delete deletes the caller's entries by ids or by thread (delete_context).
func (w *Writer) Delete(ctx context.Context, p Principal, in DeleteInput) (Deleted, error) {
	hasIDs, hasThread := in.ContextIDs != nil, in.ThreadID != nil
	switch {
	case hasIDs && hasThread:
		return Deleted{}, cerrors.Invalidf("context_ids and thread_id are mutually exclusive: provide exactly one. To delete specific entries within a thread, use delete_context_batch, which combines its criteria.")
	case !hasIDs && !hasThread:
		return Deleted{}, cerrors.Invalidf("Must provide either context_ids or thread_id")
	}
	var c persist.DeleteCriteria
	if hasIDs {
		if len(in.ContextIDs) == 0 || len(in.ContextIDs) > request.MaxBatch {
			return Deleted{}, cerrors.Invalidf("context_ids must hold 1 to %d IDs, got %d", request.MaxBatch, len(in.ContextIDs))
		}
		var err error
		if c.IDs, err = request.ResolveIDs(ctx, w.st, p.access(), in.ContextIDs); err != nil {
			return Deleted{}, err
		}
	} else {
		if pyfmt.Strip(*in.ThreadID) == "" {
			return Deleted{}, cerrors.Invalidf("thread_id cannot be empty or whitespace")
		}
		if err := request.CheckStorable("thread_id", *in.ThreadID); err != nil {
			return Deleted{}, err
		}
		c.ThreadIDs = []string{*in.ThreadID}
	}
	n, err := w.deleteMatching(ctx, p, c)
	if err != nil {
		return Deleted{}, engineErr("delete", err)
	}
	return deleted(n, nil), nil
}

// DeleteBatch deletes the caller's entries matching every given criterion
// (delete_context_batch).
func (w *Writer) DeleteBatch(ctx context.Context, p Principal, in DeleteBatchInput) (Deleted, error) {
	hasIDs, hasThreads := len(in.ContextIDs) > 0, len(in.ThreadIDs) > 0
	hasSource, hasAge := in.Source != "", in.OlderThanDays != 0
	switch {
	case !hasIDs && !hasThreads && !hasSource && !hasAge:
		return Deleted{}, cerrors.Invalidf("At least one deletion criterion must be provided: context_ids, thread_ids, source, or older_than_days")
	case hasSource && !hasIDs && !hasThreads && !hasAge:
		return Deleted{}, cerrors.Invalidf("source filter must be combined with another criterion (context_ids, thread_ids, or older_than_days)")
	case hasAge && !hasIDs && !hasThreads && !hasSource:
		return Deleted{}, cerrors.Invalidf("older_than_days must be combined with another criterion (context_ids, thread_ids, or source)")
	}
	if len(in.ContextIDs) > request.MaxBatch || len(in.ThreadIDs) > request.MaxBatch {
		return Deleted{}, cerrors.Invalidf("context_ids and thread_ids accept at most %d values each", request.MaxBatch)
	}
	if hasSource && in.Source != "user" && in.Source != "agent" {
		return Deleted{}, cerrors.Invalidf("source must be 'user' or 'agent'")
	}
	if in.OlderThanDays < 0 {
		return Deleted{}, cerrors.Invalidf("older_than_days must be a positive number of days, got %d", in.OlderThanDays)
	}
	var c persist.DeleteCriteria
	var used []string
	if hasIDs {
		var err error
		if c.IDs, err = request.ResolveIDs(ctx, w.st, p.access(), in.ContextIDs); err != nil {
			return Deleted{}, err
		}
		used = append(used, fmt.Sprintf("context_ids: %d IDs", len(in.ContextIDs)))
	}
	if hasThreads {
		for _, t := range in.ThreadIDs {
			if err := request.CheckStorable("thread_ids", t); err != nil {
				return Deleted{}, err
			}
		}
		c.ThreadIDs = in.ThreadIDs
		used = append(used, fmt.Sprintf("thread_ids: %d threads", len(in.ThreadIDs)))
	}
	if hasSource {
		c.Source = in.Source
		used = append(used, "source: "+in.Source)
	}
	if hasAge {
		before := w.now().Add(-time.Duration(in.OlderThanDays) * 24 * time.Hour)
		c.CreatedBefore = &before
		used = append(used, fmt.Sprintf("older_than_days: %d", in.OlderThanDays))
	}
	n, err := w.deleteMatching(ctx, p, c)
	if err != nil {
		return Deleted{}, engineErr("delete batch", err)
	}
	return deleted(n, used), nil
}

// deleteMatching deletes the caller's entries among those matching c. With
// named ids, one readable entry the caller does not own refuses the call.
func (w *Writer) deleteMatching(ctx context.Context, p Principal, c persist.DeleteCriteria) (int, error) {
	var n int
	err := w.st.Write(ctx, func(tx persist.Tx) error {
		refs, err := tx.MatchDelete(ctx, p.access(), c)
		if err != nil {
			return err
		}
		if c.IDs != nil {
			if refused := notOwned(p, c.IDs, refs); len(refused) > 0 {
				return cerrors.New(cerrors.ErrNotAuthorized, "Not authorized to delete context entries: %s", strings.Join(refused, ", "))
			}
		}
		ids := ownedIDs(p, refs)
		if len(ids) == 0 {
			return nil
		}
		n, err = tx.Delete(ctx, ids)
		return err
	})
	return n, err
}

// notOwned returns the refs the caller does not own, in the given id order.
func notOwned(p Principal, order []string, refs []persist.Ref) []string {
	owner := make(map[string]string, len(refs))
	for _, r := range refs {
		owner[r.ID] = r.Owner
	}
	var out []string
	for _, id := range order {
		if o, ok := owner[id]; ok && o != p.ID {
			out = append(out, id)
		}
	}
	return out
}

func ownedIDs(p Principal, refs []persist.Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Owner == p.ID {
			out = append(out, r.ID)
		}
	}
	return out
}
