package write

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

func TestDelete(t *testing.T) {
	ctx := context.Background()
	w := New(openStore(t), nil, Options{})
	mine := mustStore(t, w, alice, "d", "mine")
	theirs := mustStore(t, w, bob, "d", "theirs")
	thread := "d"
	_, err := w.Delete(ctx, alice, DeleteInput{ContextIDs: []string{mine.ID}, ThreadID: &thread})
	wantErr(t, err, cerrors.ErrInvalid, "context_ids and thread_id are mutually exclusive")
	_, err = w.Delete(ctx, alice, DeleteInput{ContextIDs: []string{}})
	wantErr(t, err, cerrors.ErrInvalid, "context_ids must hold 1 to 100 IDs, got 0")

	// An entry the caller cannot read is absent; one it reads but does not
	// own refuses the whole call.
	if out, err := w.Delete(ctx, alice, DeleteInput{ContextIDs: []string{theirs.ID}}); err != nil || out.Count != 0 {
		t.Fatalf("unreadable: %+v, %v", out, err)
	}
	if _, err := w.Share(ctx, bob, GrantInput{ContextID: theirs.ID, PrincipalType: PrincipalUser, PrincipalID: "alice", Permission: PermissionWrite}); err != nil {
		t.Fatal(err)
	}
	_, err = w.Delete(ctx, alice, DeleteInput{ContextIDs: []string{mine.ID, theirs.ID}})
	wantErr(t, err, cerrors.ErrNotAuthorized, "Not authorized to delete context entries: "+theirs.ID)
	get(t, w.st, alice, mine.ID) // not deleted

	// By thread, only the caller's own entries go.
	out, err := w.Delete(ctx, alice, DeleteInput{ThreadID: &thread})
	if err != nil || out.Count != 1 || out.Message != "Successfully deleted 1 context entries" {
		t.Fatalf("by thread: %+v, %v", out, err)
	}
	get(t, w.st, bob, theirs.ID)
}

func TestDeleteBatch(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	w := New(openStore(t), nil, Options{Now: clock})
	old := mustStore(t, w, alice, "a", "old")
	now = now.Add(10 * 24 * time.Hour)
	recent := mustStore(t, w, alice, "a", "recent")
	for _, c := range []struct {
		in   DeleteBatchInput
		want string
	}{
		{DeleteBatchInput{}, "At least one deletion criterion must be provided"},
		{DeleteBatchInput{Source: "user"}, "source filter must be combined with another criterion"},
		{DeleteBatchInput{OlderThanDays: 3}, "older_than_days must be combined with another criterion"},
		{DeleteBatchInput{ThreadIDs: []string{"a"}, Source: "bot"}, "source must be 'user' or 'agent'"},
		{DeleteBatchInput{ThreadIDs: []string{"a"}, OlderThanDays: -1}, "older_than_days must be a positive number of days, got -1"},
	} {
		_, err := w.DeleteBatch(ctx, alice, c.in)
		wantErr(t, err, cerrors.ErrInvalid, c.want)
	}
	out, err := w.DeleteBatch(ctx, alice, DeleteBatchInput{ThreadIDs: []string{"a"}, Source: "user", OlderThanDays: 5})
	if err != nil || out.Count != 1 {
		t.Fatalf("delete: %+v, %v", out, err)
	}
	if want := []string{"thread_ids: 1 threads", "source: user", "older_than_days: 5"}; !slices.Equal(out.Criteria, want) {
		t.Fatalf("criteria = %q, want %q", out.Criteria, want)
	}
	if ents, err := w.st.Get(ctx, alice.access(), []string{old.ID, recent.ID}, persist.GetOptions{}); err != nil || len(ents) != 1 || ents[0].ID != recent.ID {
		t.Fatalf("left = %+v, %v: want only the recent entry", ents, err)
	}
}
