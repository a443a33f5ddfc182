package contextd

import (
	"context"
	"errors"

	"github.com/contextd/contextd/cerrors"

	"github.com/contextd/contextd/internal/write"
)

func strPtr(s string) *string { return &s }

// StoreBatch stores up to 100 entries in order (store_context_batch).
func (e *Engine) StoreBatch(ctx context.Context, req StoreBatchRequest) (*BatchResponse, error) {
	p, wp, err := e.writeCaller(ctx, "store_context_batch")
	if err != nil {
		return nil, err
	}
	if err := write.CheckBatchSize("entries", len(req.Entries)); err != nil {
		return nil, err
	}
	items := make([]write.StoreItem, len(req.Entries))
	for i, item := range req.Entries {
		items[i].Err = item.DecodeErr
		if item.DecodeErr == nil {
			items[i].Store, items[i].Err = e.validateStore(p, item.StoreRequest, true)
		}
	}
	b, err := e.w.StoreBatch(ctx, wp, items, req.Atomic == nil || *req.Atomic)
	if err != nil {
		return nil, err
	}
	return batchResponse(b, false), nil
}

// UpdateBatch applies up to 100 updates in order (update_context_batch).
func (e *Engine) UpdateBatch(ctx context.Context, req UpdateBatchRequest) (*BatchResponse, error) {
	_, wp, err := e.writeCaller(ctx, "update_context_batch")
	if err != nil {
		return nil, err
	}
	if err := write.CheckBatchSize("updates", len(req.Updates)); err != nil {
		return nil, err
	}
	items := make([]write.UpdateItem, len(req.Updates))
	for i, item := range req.Updates {
		items[i] = write.UpdateItem{ContextID: item.ContextID, DecodeErr: item.DecodeErr}
		if item.DecodeErr == nil {
			items[i].Update, items[i].Err = e.validateUpdate(item.UpdateRequest, true)
		}
	}
	b, err := e.w.UpdateBatch(ctx, wp, items, req.Atomic == nil || *req.Atomic)
	if err != nil {
		return nil, err
	}
	return batchResponse(b, true), nil
}

// batchResponse shapes a batch result; the results of an update batch
// always name the entry and carry updated_fields.
func batchResponse(b *write.Batch, update bool) *BatchResponse {
	resp := &BatchResponse{Total: len(b.Items), Succeeded: b.Succeeded, Results: make([]BatchItemResult, len(b.Items)), Message: b.Message}
	resp.Failed = resp.Total - resp.Succeeded
	resp.Success = resp.Failed == 0
	for i, it := range b.Items {
		r := BatchItemResult{Index: i, Success: it.Err == nil, UpdatedFields: it.Fields, Update: update}
		if it.ID != "" || update {
			r.ContextID = strPtr(it.ID)
		}
		if it.Err != nil {
			var ce *Error
			if errors.As(it.Err, &ce) {
				r.Error = strPtr(it.Err.Error())
			} else if errors.Is(it.Err, ErrDatabaseUnavailable) {
				r.Error, r.Cause = strPtr(cerrors.UnavailableText), it.Err
			} else { // not the caller's fault: the detail is for the log
				r.Error, r.Cause = strPtr(cerrors.UnexpectedText), it.Err
			}
		}
		resp.Results[i] = r
	}
	return resp
}
