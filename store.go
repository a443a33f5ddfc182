package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/write"
)

// The write path (deduplication, version-checked updates, batch
// transactions, deletes and grants) lives in package internal/write; the
// public methods check the caller, validate the request into typed values
// and shape the response.

// newWriter builds the engine's write path over its store and generator.
func (e *Engine) newWriter() *write.Writer {
	return write.New(e.st, e.gen, write.Options{
		Now: e.now, NewID: e.newID,
		AuthorGroupGrants:  e.cfg.DefaultGroupGrants == "author_groups",
		AnonymousPrincipal: e.cfg.AnonymousPrincipal,
		PublishRole:        e.cfg.PublishRole,
	})
}

// writeCaller checks that the caller of ctx may run the writing tool and
// returns it.
func (e *Engine) writeCaller(ctx context.Context, tool string) (Principal, write.Principal, error) {
	if err := e.CheckWritable(ctx, tool); err != nil {
		return Principal{}, write.Principal{}, err
	}
	p, _, err := e.caller(ctx)
	return p, e.writePrincipal(p), err
}

// writePrincipal is p as package internal/write takes it.
func (e *Engine) writePrincipal(p Principal) write.Principal {
	return write.Principal{ID: p.ID, Groups: p.Groups, MayPublish: e.requestOptions(p, false).MayPublish}
}

// validateStore validates a store request in the documented order.
// batch selects the wording the batch tools use.
func (e *Engine) validateStore(p Principal, req StoreRequest, batch bool) (*request.Store, error) {
	return request.ValidateStore(request.StoreInput{
		ThreadID: req.ThreadID, Source: req.Source, Text: req.Text, Images: req.Images,
		Metadata: req.Metadata, Tags: req.Tags, Visibility: req.Visibility, Deduplicate: req.Deduplicate,
	}, e.requestOptions(p, batch))
}

// Store stores one entry (store_context).
func (e *Engine) Store(ctx context.Context, req StoreRequest) (*StoreResponse, error) {
	p, wp, err := e.writeCaller(ctx, "store_context")
	if err != nil {
		return nil, err
	}
	s, err := e.validateStore(p, req, false)
	if err != nil {
		return nil, err
	}
	out, err := e.w.Store(ctx, wp, s)
	if err != nil {
		return nil, err
	}
	return &StoreResponse{Success: true, ContextID: out.ID, ThreadID: s.ThreadID, Message: out.Message}, nil
}
