package contextd

import (
	"context"
	"fmt"
	"slices"

	"github.com/contextd/contextd/persist"
)

// Principal types and permissions of a grant.
const (
	PrincipalUser   = "user"
	PrincipalGroup  = "group"
	PermissionRead  = "read"
	PermissionWrite = "write"
)

// maxPrincipalIDLen bounds a grantee's id, in code points.
const maxPrincipalIDLen = 256

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

// ListGrantsRequest is the input of list_context_grants.
type ListGrantsRequest struct {
	ContextID string `json:"context_id"`
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

// checkGrantee validates the grantee of a share or unshare request in the
// documented order: the kind and permission first (the schema
// enumerates them, so only library callers reach these), then principal_id.
func checkGrantee(req ShareRequest) error {
	if req.PrincipalType != PrincipalUser && req.PrincipalType != PrincipalGroup {
		return invalidf("principal_type must be one of 'user', 'group'")
	}
	if req.Permission != PermissionRead && req.Permission != PermissionWrite {
		return invalidf("permission must be one of 'read', 'write'")
	}
	id := req.PrincipalID
	switch stripped := pyStrip(id); {
	case stripped == "":
		return invalidf("principal_id cannot be empty or whitespace")
	case stripped != id:
		return invalidf("principal_id cannot have leading or trailing whitespace")
	case runeLen(id) > maxPrincipalIDLen:
		return invalidf("principal_id exceeds %d characters", maxPrincipalIDLen)
	}
	return checkStorable("principal_id", id)
}

// ownedEntry resolves raw over the caller's readable entries and checks
// that the caller owns it: an unreadable entry is "not found" (hidden ==
// absent), a readable one the caller does not own gets notOwner.
func (e *Engine) ownedEntry(ctx context.Context, r persist.Reader, p Principal, acc persist.Access, raw, notOwner string) (string, error) {
	id, err := resolveID(ctx, r, acc, raw)
	if err != nil {
		return "", wrapIDErr("Invalid context ID: ", err)
	}
	st, found, err := r.State(ctx, acc, id)
	if err != nil {
		return "", fmt.Errorf("entry state: %w", err)
	}
	if !found || !st.Readable {
		return "", newErr(ErrNotFound, "Context entry with ID %s not found", id)
	}
	if st.Owner != p.ID {
		return "", newErr(ErrNotAuthorized, notOwner, id)
	}
	return id, nil
}

// Share grants one user or group read or write permission on an entry the
// caller owns (share_context). Sharing is idempotent and leaves the entry's
// updated_at and version unchanged.
func (e *Engine) Share(ctx context.Context, req ShareRequest) (*ShareResponse, error) {
	if err := e.CheckWritable(ctx, "share_context"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkGrantee(req); err != nil {
		return nil, err
	}
	// Refused before the lookup, so it names the id as the caller passed it:
	// a user grant cannot make an entry readable to everyone; publishing is.
	if req.PrincipalType == PrincipalUser && e.cfg.AnonymousPrincipal != "" && req.PrincipalID == e.cfg.AnonymousPrincipal {
		return nil, invalidf("Cannot share context entry with ID %s with the anonymous principal; set its visibility to 'public' to publish it", req.ContextID)
	}
	var out ShareResponse
	err = e.st.Write(ctx, func(tx persist.Tx) error {
		id, err := e.ownedEntry(ctx, tx, p, acc, req.ContextID, "Not authorized to share context entry with ID %s")
		if err != nil {
			return err
		}
		if req.PrincipalType == PrincipalUser && req.PrincipalID == p.ID {
			return invalidf("Cannot share context entry with ID %s with its owner", id)
		}
		created, err := tx.Grant(ctx, id, persist.Grant{
			PrincipalType: req.PrincipalType, PrincipalID: req.PrincipalID, Permission: req.Permission,
			GrantedBy: p.ID, CreatedAt: e.now().UTC(),
		})
		if err != nil {
			return err
		}
		out = ShareResponse{
			Success: true, ContextID: id, PrincipalType: req.PrincipalType, PrincipalID: req.PrincipalID,
			Permission: req.Permission, Created: created,
			Message: fmt.Sprintf("Granted %s on context entry %s to %s %s", req.Permission, id, req.PrincipalType, req.PrincipalID),
		}
		if !created {
			out.Message = fmt.Sprintf("%s %s already holds %s on context entry %s", req.PrincipalType, req.PrincipalID, req.Permission, id)
		}
		return nil
	})
	if err != nil {
		return nil, passEngineErr("share", err)
	}
	return &out, nil
}

// Unshare removes exactly one grant from an entry the caller owns
// (unshare_context). The owner may remove any grant, including ones naming
// itself or the anonymous principal that reached the database another way.
func (e *Engine) Unshare(ctx context.Context, req ShareRequest) (*UnshareResponse, error) {
	if err := e.CheckWritable(ctx, "unshare_context"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkGrantee(req); err != nil {
		return nil, err
	}
	var out UnshareResponse
	err = e.st.Write(ctx, func(tx persist.Tx) error {
		id, err := e.ownedEntry(ctx, tx, p, acc, req.ContextID, "Not authorized to unshare context entry with ID %s")
		if err != nil {
			return err
		}
		removed, err := tx.Ungrant(ctx, id, req.PrincipalType, req.PrincipalID, req.Permission)
		if err != nil {
			return err
		}
		// Read in the same transaction, so the answer matches the commit.
		grants, err := tx.Grants(ctx, id)
		if err != nil {
			return err
		}
		remaining := []string{}
		for _, g := range grants {
			if g.PrincipalType == req.PrincipalType && g.PrincipalID == req.PrincipalID && !slices.Contains(remaining, g.Permission) {
				remaining = append(remaining, g.Permission)
			}
		}
		slices.Sort(remaining)
		out = UnshareResponse{
			Success: true, ContextID: id, PrincipalType: req.PrincipalType, PrincipalID: req.PrincipalID,
			Permission: req.Permission, Removed: removed, RemainingPermissions: remaining,
			Message: fmt.Sprintf("Removed %s on context entry %s from %s %s", req.Permission, id, req.PrincipalType, req.PrincipalID),
		}
		if !removed {
			out.Message = fmt.Sprintf("No %s grant on context entry %s for %s %s", req.Permission, id, req.PrincipalType, req.PrincipalID)
		}
		return nil
	})
	if err != nil {
		return nil, passEngineErr("unshare", err)
	}
	return &out, nil
}

// ListGrants lists every grant of an entry the caller owns
// (list_context_grants), with no paging and no cap.
func (e *Engine) ListGrants(ctx context.Context, req ListGrantsRequest) (*ListGrantsResponse, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	id, err := e.ownedEntry(ctx, e.st, p, acc, req.ContextID, "Not authorized to list the grants of context entry with ID %s")
	if err != nil {
		return nil, passEngineErr("list grants", err)
	}
	grants, err := e.st.Grants(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	out := &ListGrantsResponse{ContextID: id, Grants: make([]GrantView, len(grants)), Count: len(grants)}
	for i, g := range grants {
		out.Grants[i] = GrantView{
			PrincipalType: g.PrincipalType, PrincipalID: g.PrincipalID, Permission: g.Permission,
			GrantedBy: g.GrantedBy, CreatedAt: wireTime(g.CreatedAt),
		}
	}
	return out, nil
}
