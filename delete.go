package contextd

import "context"

// Delete deletes entries by ids or by thread (delete_context).
func (e *Engine) Delete(ctx context.Context, req DeleteRequest) (*DeleteResponse, error) {
	_, wp, err := e.writeCaller(ctx, "delete_context")
	if err != nil {
		return nil, err
	}
	out, err := e.w.Delete(ctx, wp, req)
	if err != nil {
		return nil, err
	}
	return &DeleteResponse{Success: true, DeletedCount: out.Count, Message: out.Message}, nil
}

// DeleteBatch deletes by AND-combined criteria (delete_context_batch).
func (e *Engine) DeleteBatch(ctx context.Context, req DeleteBatchRequest) (*DeleteBatchResponse, error) {
	_, wp, err := e.writeCaller(ctx, "delete_context_batch")
	if err != nil {
		return nil, err
	}
	out, err := e.w.DeleteBatch(ctx, wp, req)
	if err != nil {
		return nil, err
	}
	return &DeleteBatchResponse{Success: true, DeletedCount: out.Count, CriteriaUsed: out.Criteria, Message: out.Message}, nil
}
