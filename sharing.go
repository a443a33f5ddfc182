package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/write"
)

// Share grants one user or group read or write permission on an entry the
// caller owns (share_context). Sharing is idempotent and leaves the entry's
// updated_at and version unchanged.
func (e *Engine) Share(ctx context.Context, req ShareRequest) (*ShareResponse, error) {
	_, wp, err := e.writeCaller(ctx, "share_context")
	if err != nil {
		return nil, err
	}
	out, err := e.w.Share(ctx, wp, req)
	if err != nil {
		return nil, err
	}
	return write.ShareView(req, out), nil
}

// Unshare removes exactly one grant from an entry the caller owns
// (unshare_context). The owner may remove any grant, including ones naming
// itself or the anonymous principal that reached the database another way.
func (e *Engine) Unshare(ctx context.Context, req ShareRequest) (*UnshareResponse, error) {
	_, wp, err := e.writeCaller(ctx, "unshare_context")
	if err != nil {
		return nil, err
	}
	out, err := e.w.Unshare(ctx, wp, req)
	if err != nil {
		return nil, err
	}
	return write.UnshareView(req, out), nil
}

// ListGrants lists every grant of an entry the caller owns
// (list_context_grants), with no paging and no cap.
func (e *Engine) ListGrants(ctx context.Context, req ListGrantsRequest) (*ListGrantsResponse, error) {
	p, _, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	id, grants, err := e.w.ListGrants(ctx, e.writePrincipal(p), req.ContextID)
	if err != nil {
		return nil, err
	}
	return write.GrantsView(id, grants), nil
}
