package api

// Principal types and permissions of a grant (ShareRequest).
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
