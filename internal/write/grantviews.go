package write

import (
	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// The responses of the sharing tools, in package api's types.

// ShareView renders the result of Share for share_context.
func ShareView(in GrantInput, out Shared) *api.ShareResponse {
	return &api.ShareResponse{Success: true, ContextID: out.ID, PrincipalType: in.PrincipalType, PrincipalID: in.PrincipalID,
		Permission: in.Permission, Created: out.Created, Message: out.Message}
}

// UnshareView renders the result of Unshare for unshare_context.
func UnshareView(in GrantInput, out Unshared) *api.UnshareResponse {
	return &api.UnshareResponse{Success: true, ContextID: out.ID, PrincipalType: in.PrincipalType, PrincipalID: in.PrincipalID,
		Permission: in.Permission, Removed: out.Removed, RemainingPermissions: out.Remaining, Message: out.Message}
}

// GrantsView renders the grants of entry id for list_context_grants.
func GrantsView(id string, grants []persist.Grant) *api.ListGrantsResponse {
	out := &api.ListGrantsResponse{ContextID: id, Grants: make([]api.GrantView, len(grants)), Count: len(grants)}
	for i, g := range grants {
		out.Grants[i] = api.GrantView{PrincipalType: g.PrincipalType, PrincipalID: g.PrincipalID, Permission: g.Permission,
			GrantedBy: g.GrantedBy, CreatedAt: request.WireTime(g.CreatedAt)}
	}
	return out
}
