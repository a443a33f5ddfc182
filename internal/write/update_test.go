package write

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/request"
)

func TestUpdateRetriesConflicts(t *testing.T) {
	ctx := context.Background()
	rs := &racingStore{Store: openStore(t)}
	w := New(rs, nil, Options{})
	stored := mustStore(t, w, alice, "t", "v1")
	// Every attempt but the last may lose the race.
	rs.races = maxUpdateAttempts - 1
	out, err := w.Update(ctx, alice, stored.ID, textUpdate(t, "v2"))
	if err != nil {
		t.Fatalf("update after %d lost races: %v", maxUpdateAttempts-1, err)
	}
	if out.Message != "Successfully updated 1 field(s)" || !slices.Equal(out.Fields, []string{"text_content"}) {
		t.Fatalf("update = %+v", out)
	}
	if got := get(t, rs, alice, stored.ID).Text; got != "v2" {
		t.Fatalf("text = %q", got)
	}
	// The retries are bounded.
	rs.races = maxUpdateAttempts
	_, err = w.Update(ctx, alice, stored.ID, textUpdate(t, "v3"))
	wantErr(t, err, cerrors.ErrConflict, "Concurrent modification of context "+stored.ID+": the entry kept changing during the update. Retry the request.")
	if rs.races != 0 {
		t.Fatalf("%d races left: the update gave up early", rs.races)
	}
	if got := get(t, rs, alice, stored.ID).Text; got != "v2" {
		t.Fatalf("text = %q after the conflict", got)
	}
}

func TestUpdateAccess(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	w := New(st, nil, Options{PublishRole: "publisher"})
	own := mustStore(t, w, alice, "t", "alice's")
	theirs := mustStore(t, w, bob, "t", "bob's")
	if _, err := w.Update(ctx, alice, theirs.ID, textUpdate(t, "x")); err == nil {
		t.Fatal("updated an unreadable entry")
	} else {
		wantErr(t, err, cerrors.ErrNotFound, "Context entry with ID "+theirs.ID+" not found")
	}
	if _, err := w.Share(ctx, bob, GrantInput{ContextID: theirs.ID, PrincipalType: PrincipalUser, PrincipalID: "alice", Permission: PermissionRead}); err != nil {
		t.Fatal(err)
	}
	_, err := w.Update(ctx, alice, theirs.ID, textUpdate(t, "x"))
	wantErr(t, err, cerrors.ErrNotAuthorized, "Not authorized to modify context entry with ID "+theirs.ID)
	if _, err := w.Share(ctx, bob, GrantInput{ContextID: theirs.ID, PrincipalType: PrincipalUser, PrincipalID: "alice", Permission: PermissionWrite}); err != nil {
		t.Fatal(err)
	}
	public := request.VisibilityPublic
	vis := &request.Update{Visibility: &public}
	_, err = w.Update(ctx, alice, theirs.ID, vis)
	wantErr(t, err, cerrors.ErrNotAuthorized, "Only the owner may change the visibility of context "+theirs.ID)
	_, err = w.Update(ctx, alice, own.ID, vis)
	wantErr(t, err, cerrors.ErrInvalid, "requires the 'publisher' role")
	publisher := alice
	publisher.MayPublish = true
	if out, err := w.Update(ctx, publisher, own.ID, vis); err != nil || !slices.Equal(out.Fields, []string{"visibility"}) {
		t.Fatalf("publish: %+v, %v", out, err)
	}
	// A writer that is not the owner may change the rest.
	patch := &request.Update{Patch: map[string]any{"status": "done"}}
	if out, err := w.Update(ctx, alice, theirs.ID, patch); err != nil || out.ID != theirs.ID {
		t.Fatalf("patch: %+v, %v", out, err)
	}
	var md map[string]any
	if err := json.Unmarshal(get(t, st, bob, theirs.ID).Metadata, &md); err != nil || md["status"] != "done" {
		t.Fatalf("metadata = %v, %v", md, err)
	}
}
