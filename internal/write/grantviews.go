package write

import (
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// The responses of the sharing tools as they marshal on the wire; the
// root package re-exports them (ShareResponse, UnshareResponse,
// ListGrantsResponse, GrantView).

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

// ShareView renders the result of Share for share_context.
func ShareView(in GrantInput, out Shared) *ShareResponse {
	return &ShareResponse{Success: true, ContextID: out.ID, PrincipalType: in.PrincipalType, PrincipalID: in.PrincipalID,
		Permission: in.Permission, Created: out.Created, Message: out.Message}
}

// UnshareView renders the result of Unshare for unshare_context.
func UnshareView(in GrantInput, out Unshared) *UnshareResponse {
	return &UnshareResponse{Success: true, ContextID: out.ID, PrincipalType: in.PrincipalType, PrincipalID: in.PrincipalID,
		Permission: in.Permission, Removed: out.Removed, RemainingPermissions: out.Remaining, Message: out.Message}
}

// GrantsView renders the grants of entry id for list_context_grants.
func GrantsView(id string, grants []persist.Grant) *ListGrantsResponse {
	out := &ListGrantsResponse{ContextID: id, Grants: make([]GrantView, len(grants)), Count: len(grants)}
	for i, g := range grants {
		out.Grants[i] = GrantView{PrincipalType: g.PrincipalType, PrincipalID: g.PrincipalID, Permission: g.Permission,
			GrantedBy: g.GrantedBy, CreatedAt: request.WireTime(g.CreatedAt)}
	}
	return out
}
