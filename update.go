package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/request"
)

// validateUpdate checks everything that needs no database, in the
// documented order; batch selects the wording of update_context_batch.
func (e *Engine) validateUpdate(req UpdateRequest, batch bool) (*request.Update, error) {
	return request.ValidateUpdate(request.UpdateInput{
		Text: req.Text, Metadata: req.Metadata, MetadataPatch: req.MetadataPatch,
		Tags: req.Tags, Images: req.Images, Visibility: req.Visibility,
	}, e.requestOptions(Principal{}, batch))
}

// Update changes one entry (update_context).
func (e *Engine) Update(ctx context.Context, req UpdateRequest) (*UpdateResponse, error) {
	_, wp, err := e.writeCaller(ctx, "update_context")
	if err != nil {
		return nil, err
	}
	u, err := e.validateUpdate(req, false)
	if err != nil {
		return nil, err
	}
	out, err := e.w.Update(ctx, wp, req.ContextID, u)
	if err != nil {
		return nil, err
	}
	return &UpdateResponse{Success: true, ContextID: out.ID, UpdatedFields: out.Fields, Message: out.Message}, nil
}
