package write

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

func TestShareUnshareListGrants(t *testing.T) {
	ctx := context.Background()
	w := New(openStore(t), nil, Options{AnonymousPrincipal: "anonymous", Now: fixedClock()})
	ent := mustStore(t, w, alice, "s", "shared")
	grant := func(typ, id, perm string) GrantInput {
		return GrantInput{ContextID: ent.ID, PrincipalType: typ, PrincipalID: id, Permission: perm}
	}
	for _, c := range []struct {
		in   GrantInput
		kind error
		want string
	}{
		{grant("robot", "x", PermissionRead), cerrors.ErrInvalid, "principal_type must be one of 'user', 'group'"},
		{grant(PrincipalUser, "x", "admin"), cerrors.ErrInvalid, "permission must be one of 'read', 'write'"},
		{grant(PrincipalUser, " ", PermissionRead), cerrors.ErrInvalid, "principal_id cannot be empty or whitespace"},
		{grant(PrincipalUser, " x", PermissionRead), cerrors.ErrInvalid, "principal_id cannot have leading or trailing whitespace"},
		{grant(PrincipalUser, strings.Repeat("é", 257), PermissionRead), cerrors.ErrInvalid, "principal_id exceeds 256 characters"},
		{grant(PrincipalUser, "anonymous", PermissionRead), cerrors.ErrInvalid, "Cannot share context entry with ID " + ent.ID + " with the anonymous principal"},
		{grant(PrincipalUser, "alice", PermissionRead), cerrors.ErrInvalid, "Cannot share context entry with ID " + ent.ID + " with its owner"},
	} {
		_, err := w.Share(ctx, alice, c.in)
		wantErr(t, err, c.kind, c.want)
	}
	_, err := w.Share(ctx, bob, grant(PrincipalUser, "carol", PermissionRead))
	wantErr(t, err, cerrors.ErrNotFound, "Context entry with ID "+ent.ID+" not found")

	out, err := w.Share(ctx, alice, grant(PrincipalUser, "bob", PermissionRead))
	if err != nil || !out.Created || out.Message != "Granted read on context entry "+ent.ID+" to user bob" {
		t.Fatalf("share: %+v, %v", out, err)
	}
	out, err = w.Share(ctx, alice, grant(PrincipalUser, "bob", PermissionRead))
	if err != nil || out.Created || out.Message != "user bob already holds read on context entry "+ent.ID {
		t.Fatalf("share again: %+v, %v", out, err)
	}
	if _, err := w.Share(ctx, alice, grant(PrincipalUser, "bob", PermissionWrite)); err != nil {
		t.Fatal(err)
	}
	// bob now reads the entry, but only its owner shares it or lists its grants.
	_, err = w.Share(ctx, bob, grant(PrincipalUser, "carol", PermissionRead))
	wantErr(t, err, cerrors.ErrNotAuthorized, "Not authorized to share context entry with ID "+ent.ID)
	_, _, err = w.ListGrants(ctx, bob, ent.ID)
	wantErr(t, err, cerrors.ErrNotAuthorized, "Not authorized to list the grants of context entry with ID "+ent.ID)

	un, err := w.Unshare(ctx, alice, grant(PrincipalUser, "bob", PermissionWrite))
	if err != nil || !un.Removed || !slices.Equal(un.Remaining, []string{"read"}) || un.Message != "Removed write on context entry "+ent.ID+" from user bob" {
		t.Fatalf("unshare: %+v, %v", un, err)
	}
	un, err = w.Unshare(ctx, alice, grant(PrincipalUser, "bob", PermissionWrite))
	if err != nil || un.Removed || un.Message != "No write grant on context entry "+ent.ID+" for user bob" {
		t.Fatalf("unshare again: %+v, %v", un, err)
	}
	id, grants, err := w.ListGrants(ctx, alice, ent.ID)
	if err != nil || id != ent.ID || len(grants) != 1 || grants[0].PrincipalID != "bob" || grants[0].Permission != PermissionRead || grants[0].GrantedBy != "alice" {
		t.Fatalf("grants: %s %+v, %v", id, grants, err)
	}
}
