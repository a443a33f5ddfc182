package contextd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
)

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

// deleteMatching deletes the caller's entries among those matching c. With
// named ids, one readable entry the caller does not own refuses the call.
func (e *Engine) deleteMatching(ctx context.Context, p Principal, acc persist.Access, c persist.DeleteCriteria) (int, error) {
	var n int
	err := e.st.Write(ctx, func(tx persist.Tx) error {
		refs, err := tx.MatchDelete(ctx, acc, c)
		if err != nil {
			return err
		}
		if c.IDs != nil {
			if refused := notOwned(p, c.IDs, refs); len(refused) > 0 {
				return newErr(ErrNotAuthorized, "Not authorized to delete context entries: %s", strings.Join(refused, ", "))
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

// Delete deletes entries by ids or by thread (delete_context).
func (e *Engine) Delete(ctx context.Context, req DeleteRequest) (*DeleteResponse, error) {
	if err := e.CheckWritable(ctx, "delete_context"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	hasIDs, hasThread := req.ContextIDs != nil, req.ThreadID != nil
	switch {
	case hasIDs && hasThread:
		return nil, invalidf("context_ids and thread_id are mutually exclusive: provide exactly one. To delete specific entries within a thread, use delete_context_batch, which combines its criteria.")
	case !hasIDs && !hasThread:
		return nil, invalidf("Must provide either context_ids or thread_id")
	}
	var c persist.DeleteCriteria
	if hasIDs {
		if len(req.ContextIDs) == 0 || len(req.ContextIDs) > maxBatch {
			return nil, invalidf("context_ids must hold 1 to %d IDs, got %d", maxBatch, len(req.ContextIDs))
		}
		if c.IDs, err = resolveIDs(ctx, e.st, acc, req.ContextIDs); err != nil {
			return nil, err
		}
	} else {
		if pyStrip(*req.ThreadID) == "" {
			return nil, invalidf("thread_id cannot be empty or whitespace")
		}
		if err := checkStorable("thread_id", *req.ThreadID); err != nil {
			return nil, err
		}
		c.ThreadIDs = []string{*req.ThreadID}
	}
	n, err := e.deleteMatching(ctx, p, acc, c)
	if err != nil {
		return nil, passEngineErr("delete", err)
	}
	return &DeleteResponse{Success: true, DeletedCount: n, Message: fmt.Sprintf("Successfully deleted %d context entries", n)}, nil
}

// DeleteBatch deletes by AND-combined criteria (delete_context_batch).
func (e *Engine) DeleteBatch(ctx context.Context, req DeleteBatchRequest) (*DeleteBatchResponse, error) {
	if err := e.CheckWritable(ctx, "delete_context_batch"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	hasIDs, hasThreads := len(req.ContextIDs) > 0, len(req.ThreadIDs) > 0
	hasSource, hasAge := req.Source != "", req.OlderThanDays != 0
	switch {
	case !hasIDs && !hasThreads && !hasSource && !hasAge:
		return nil, invalidf("At least one deletion criterion must be provided: context_ids, thread_ids, source, or older_than_days")
	case hasSource && !hasIDs && !hasThreads && !hasAge:
		return nil, invalidf("source filter must be combined with another criterion (context_ids, thread_ids, or older_than_days)")
	case hasAge && !hasIDs && !hasThreads && !hasSource:
		return nil, invalidf("older_than_days must be combined with another criterion (context_ids, thread_ids, or source)")
	}
	if len(req.ContextIDs) > maxBatch || len(req.ThreadIDs) > maxBatch {
		return nil, invalidf("context_ids and thread_ids accept at most %d values each", maxBatch)
	}
	if hasSource && req.Source != "user" && req.Source != "agent" {
		return nil, invalidf("source must be 'user' or 'agent'")
	}
	if req.OlderThanDays < 0 {
		return nil, invalidf("older_than_days must be a positive number of days, got %d", req.OlderThanDays)
	}
	var c persist.DeleteCriteria
	var used []string
	if hasIDs {
		if c.IDs, err = resolveIDs(ctx, e.st, acc, req.ContextIDs); err != nil {
			return nil, err
		}
		used = append(used, fmt.Sprintf("context_ids: %d IDs", len(req.ContextIDs)))
	}
	if hasThreads {
		for _, t := range req.ThreadIDs {
			if err := checkStorable("thread_ids", t); err != nil {
				return nil, err
			}
		}
		c.ThreadIDs = req.ThreadIDs
		used = append(used, fmt.Sprintf("thread_ids: %d threads", len(req.ThreadIDs)))
	}
	if hasSource {
		c.Source = req.Source
		used = append(used, "source: "+req.Source)
	}
	if hasAge {
		before := e.now().UTC().Add(-time.Duration(req.OlderThanDays) * 24 * time.Hour)
		c.CreatedBefore = &before
		used = append(used, fmt.Sprintf("older_than_days: %d", req.OlderThanDays))
	}
	n, err := e.deleteMatching(ctx, p, acc, c)
	if err != nil {
		return nil, passEngineErr("delete batch", err)
	}
	return &DeleteBatchResponse{Success: true, DeletedCount: n, CriteriaUsed: used, Message: fmt.Sprintf("Successfully deleted %d context entries", n)}, nil
}

// passEngineErr returns engine errors as they are and wraps the others.
func passEngineErr(op string, err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		return ee
	}
	return fmt.Errorf("%s: %w", op, err)
}
