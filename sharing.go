package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/write"
)

// Principal types and permissions of a grant.
const (
	PrincipalUser   = "user"  // one principal (a token subject)
	PrincipalGroup  = "group" // every member of a group
	PermissionRead  = "read"
	PermissionWrite = "write"
)

// ShareRequest is the input of share_context and unshare_context.
type ShareRequest struct {
	ContextID     string `json:"context_id"`
	PrincipalType string `json:"principal_type"` // "user" | "group"
	PrincipalID   string `json:"principal_id"`
	Permission    string `json:"permission"` // "read" | "write"
}

// ShareResponse is the result of share_context.
type ShareResponse struct {
	Success       bool   `json:"success"`
	ContextID     string `json:"context_id"`
	PrincipalType string `json:"principal_type"`
	PrincipalID   string `json:"principal_id"`
	Permission    string `json:"permission"`
	Created       bool   `json:"created"`
	Message       string `json:"message"`
}

// UnshareResponse is the result of unshare_context.
type UnshareResponse struct {
	Success              bool     `json:"success"`
	ContextID            string   `json:"context_id"`
	PrincipalType        string   `json:"principal_type"`
	PrincipalID          string   `json:"principal_id"`
	Permission           string   `json:"permission"`
	Removed              bool     `json:"removed"`
	RemainingPermissions []string `json:"remaining_permissions"`
	Message              string   `json:"message"`
}

// GrantView is one grant as list_context_grants returns it.
type GrantView struct {
	PrincipalType string `json:"principal_type"`
	PrincipalID   string `json:"principal_id"`
	Permission    string `json:"permission"`
	GrantedBy     string `json:"granted_by"`
	CreatedAt     string `json:"created_at"`
}

// ListGrantsResponse is the result of list_context_grants.
type ListGrantsResponse struct {
	ContextID string      `json:"context_id"`
	Grants    []GrantView `json:"grants"`
	Count     int         `json:"count"`
}

// ListGrantsRequest is the input of list_context_grants.
type ListGrantsRequest struct {
	ContextID string `json:"context_id"`
}

// Share grants one user or group read or write permission on an entry the
// caller owns (share_context). Sharing is idempotent and leaves the entry's
// updated_at and version unchanged.
func (e *Engine) Share(ctx context.Context, req ShareRequest) (*ShareResponse, error) {
	_, wp, err := e.writeCaller(ctx, "share_context")
	if err != nil {
		return nil, err
	}
	out, err := e.w.Share(ctx, wp, write.GrantInput(req))
	if err != nil {
		return nil, err
	}
	return (*ShareResponse)(write.ShareView(write.GrantInput(req), out)), nil
}

// Unshare removes exactly one grant from an entry the caller owns
// (unshare_context). The owner may remove any grant, including ones naming
// itself or the anonymous principal that reached the database another way.
func (e *Engine) Unshare(ctx context.Context, req ShareRequest) (*UnshareResponse, error) {
	_, wp, err := e.writeCaller(ctx, "unshare_context")
	if err != nil {
		return nil, err
	}
	out, err := e.w.Unshare(ctx, wp, write.GrantInput(req))
	if err != nil {
		return nil, err
	}
	return (*UnshareResponse)(write.UnshareView(write.GrantInput(req), out)), nil
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
	v := write.GrantsView(id, grants)
	return &ListGrantsResponse{ContextID: v.ContextID, Grants: convert(v.Grants, func(g write.GrantView) GrantView { return GrantView(g) }), Count: v.Count}, nil
}
