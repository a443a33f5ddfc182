package write

import (
	"context"
	"fmt"
	"slices"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// Principal types and permissions of a grant.
const (
	PrincipalUser   = api.PrincipalUser
	PrincipalGroup  = api.PrincipalGroup
	PermissionRead  = api.PermissionRead
	PermissionWrite = api.PermissionWrite
)

// maxPrincipalIDLen bounds a grantee's id, in code points.
const maxPrincipalIDLen = 256

// GrantInput is the input of share_context and unshare_context.
type GrantInput = api.ShareRequest

// Shared is the result of Share.
type Shared struct {
	ID      string // the resolved entry id
	Created bool   // false when the grant already existed
	Message string
}

// Unshared is the result of Unshare.
type Unshared struct {
	ID      string // the resolved entry id
	Removed bool   // false when there was no such grant
	// Remaining are the permissions the grantee still holds, sorted.
	Remaining []string
	Message   string
}

// checkGrantee validates the grantee of a share or unshare request in the
// documented order: the kind and permission first (the schema
// enumerates them, so only library callers reach these), then principal_id.
func checkGrantee(in GrantInput) error {
	if in.PrincipalType != PrincipalUser && in.PrincipalType != PrincipalGroup {
		return cerrors.Invalidf("principal_type must be one of 'user', 'group'")
	}
	if in.Permission != PermissionRead && in.Permission != PermissionWrite {
		return cerrors.Invalidf("permission must be one of 'read', 'write'")
	}
	id := in.PrincipalID
	switch stripped := pyfmt.Strip(id); {
	case stripped == "":
		return cerrors.Invalidf("principal_id cannot be empty or whitespace")
	case stripped != id:
		return cerrors.Invalidf("principal_id cannot have leading or trailing whitespace")
	case request.RuneLen(id) > maxPrincipalIDLen:
		return cerrors.Invalidf("principal_id exceeds %d characters", maxPrincipalIDLen)
	}
	return request.CheckStorable("principal_id", id)
}

// ownedEntry resolves raw over the caller's readable entries and checks
// that the caller owns it: an unreadable entry is "not found" (hidden ==
// absent), a readable one the caller does not own gets notOwner.
func ownedEntry(ctx context.Context, r persist.Reader, p Principal, raw, notOwner string) (string, error) {
	acc := p.access()
	id, err := request.ResolveID(ctx, r, acc, raw)
	if err != nil {
		return "", request.WrapIDErr("Invalid context ID: ", err)
	}
	st, found, err := r.State(ctx, acc, id)
	if err != nil {
		return "", fmt.Errorf("entry state: %w", err)
	}
	if !found || !st.Readable {
		return "", cerrors.New(cerrors.ErrNotFound, "Context entry with ID %s not found", id)
	}
	if st.Owner != p.ID {
		return "", cerrors.New(cerrors.ErrNotAuthorized, notOwner, id)
	}
	return id, nil
}

// Share grants one user or group read or write permission on an entry the
// caller owns (share_context). Sharing is idempotent and leaves the entry's
// updated_at and version unchanged.
func (w *Writer) Share(ctx context.Context, p Principal, in GrantInput) (Shared, error) {
	if err := checkGrantee(in); err != nil {
		return Shared{}, err
	}
	// Refused before the lookup, so it names the id as the caller passed it:
	// a user grant cannot make an entry readable to everyone; publishing is.
	if in.PrincipalType == PrincipalUser && w.o.AnonymousPrincipal != "" && in.PrincipalID == w.o.AnonymousPrincipal {
		return Shared{}, cerrors.Invalidf("Cannot share context entry with ID %s with the anonymous principal; set its visibility to 'public' to publish it", in.ContextID)
	}
	var out Shared
	err := w.st.Write(ctx, func(tx persist.Tx) error {
		id, err := ownedEntry(ctx, tx, p, in.ContextID, "Not authorized to share context entry with ID %s")
		if err != nil {
			return err
		}
		if in.PrincipalType == PrincipalUser && in.PrincipalID == p.ID {
			return cerrors.Invalidf("Cannot share context entry with ID %s with its owner", id)
		}
		created, err := tx.Grant(ctx, id, persist.Grant{
			PrincipalType: in.PrincipalType, PrincipalID: in.PrincipalID, Permission: in.Permission,
			GrantedBy: p.ID, CreatedAt: w.now(),
		})
		if err != nil {
			return err
		}
		out = Shared{ID: id, Created: created,
			Message: fmt.Sprintf("Granted %s on context entry %s to %s %s", in.Permission, id, in.PrincipalType, in.PrincipalID)}
		if !created {
			out.Message = fmt.Sprintf("%s %s already holds %s on context entry %s", in.PrincipalType, in.PrincipalID, in.Permission, id)
		}
		return nil
	})
	if err != nil {
		return Shared{}, engineErr("share", err)
	}
	return out, nil
}

// Unshare removes exactly one grant from an entry the caller owns
// (unshare_context). The owner may remove any grant, including ones naming
// itself or the anonymous principal that reached the database another way.
func (w *Writer) Unshare(ctx context.Context, p Principal, in GrantInput) (Unshared, error) {
	if err := checkGrantee(in); err != nil {
		return Unshared{}, err
	}
	var out Unshared
	err := w.st.Write(ctx, func(tx persist.Tx) error {
		id, err := ownedEntry(ctx, tx, p, in.ContextID, "Not authorized to unshare context entry with ID %s")
		if err != nil {
			return err
		}
		removed, err := tx.Ungrant(ctx, id, in.PrincipalType, in.PrincipalID, in.Permission)
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
			if g.PrincipalType == in.PrincipalType && g.PrincipalID == in.PrincipalID && !slices.Contains(remaining, g.Permission) {
				remaining = append(remaining, g.Permission)
			}
		}
		slices.Sort(remaining)
		out = Unshared{ID: id, Removed: removed, Remaining: remaining,
			Message: fmt.Sprintf("Removed %s on context entry %s from %s %s", in.Permission, id, in.PrincipalType, in.PrincipalID)}
		if !removed {
			out.Message = fmt.Sprintf("No %s grant on context entry %s for %s %s", in.Permission, id, in.PrincipalType, in.PrincipalID)
		}
		return nil
	})
	if err != nil {
		return Unshared{}, engineErr("unshare", err)
	}
	return out, nil
}

// ListGrants returns the resolved id and every grant of an entry the
// caller owns (list_context_grants), with no paging and no cap.
func (w *Writer) ListGrants(ctx context.Context, p Principal, rawID string) (string, []persist.Grant, error) {
	id, err := ownedEntry(ctx, w.st, p, rawID, "Not authorized to list the grants of context entry with ID %s")
	if err != nil {
		return "", nil, engineErr("list grants", err)
	}
	grants, err := w.st.Grants(ctx, id)
	if err != nil {
		return "", nil, fmt.Errorf("list grants: %w", err)
	}
	return id, grants, nil
}
