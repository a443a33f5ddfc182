package write

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// idSequence hands out ids in order, repeating one to make an insert fail
// inside the transaction.
func idSequence(ids ...string) func() string {
	return func() string {
		id := ids[0]
		ids = ids[1:]
		return id
	}
}

const (
	idA = "019abcde000070008000000000000001"
	idB = "019abcde000070008000000000000002"
)

// threadEmpty reports whether alice has no entry in thread.
func threadEmpty(t *testing.T, w *Writer, thread string) bool {
	t.Helper()
	cand, _, err := w.st.DedupCandidate(context.Background(), alice.access(), thread, "user")
	if err != nil {
		t.Fatal(err)
	}
	return cand == nil
}

func TestStoreBatchValidation(t *testing.T) {
	ctx := context.Background()
	w := New(openStore(t), nil, Options{})
	bad := errors.New("text cannot be empty or whitespace")
	items := []StoreItem{{Store: validStore(t, "v", "a")}, {Err: bad}, {Err: bad}}
	_, err := w.StoreBatch(ctx, alice, items, true)
	wantErr(t, err, cerrors.ErrInvalid, "Validation failed for 2 entries. First error at index 1: text cannot be empty or whitespace")
	if !threadEmpty(t, w, "v") {
		t.Fatal("an atomic batch with invalid entries stored something")
	}
	b, err := w.StoreBatch(ctx, alice, items[1:], false)
	if err != nil || b.Message != "All entries failed validation" || b.Succeeded != 0 || b.Items[1].Err != bad {
		t.Fatalf("all invalid: %+v, %v", b, err)
	}
	b, err = w.StoreBatch(ctx, alice, items, false)
	if err != nil || b.Message != "Stored 1/3 entries successfully" || b.Items[0].ID == "" || b.Items[0].Err != nil || b.Items[2].ID != "" {
		t.Fatalf("partly invalid: %+v, %v", b, err)
	}
	if err := CheckBatchSize("entries", 101); err == nil || err.Error() != "entries must hold 1 to 100 entries, got 101" {
		t.Fatalf("size check: %v", err)
	}
	if err := CheckBatchSize("updates", 0); err == nil || err.Error() != "updates must hold 1 to 100 updates, got 0" {
		t.Fatalf("size check: %v", err)
	}
}

// The atomic batch's error names the failing entry on every store: on
// PostgreSQL the insert is pipelined, so its failure surfaces in a later
// entry's read or at the commit, and still reads "entry 1: ".
func TestStoreBatchTransactions(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) persist.Store
	}{{"sqlite", openStore}, {"postgresql", openPostgres}} {
		t.Run(b.name, func(t *testing.T) { storeBatchTransactions(t, b.open(t), b.name) })
	}
}

func storeBatchTransactions(t *testing.T, st persist.Store, backend string) {
	ctx := context.Background()
	items := func() []StoreItem {
		return []StoreItem{{Store: validStore(t, "b", "one")}, {Store: validStore(t, "b", "two")}, {Store: validStore(t, "b", "three")}}
	}
	// Atomic: the second insert reuses the first id and fails, so the
	// whole batch rolls back.
	w := New(st, nil, Options{NewID: idSequence(idA, idA, idB)})
	_, err := w.StoreBatch(ctx, alice, items(), true)
	if want := "store batch: entry 1: " + backend + ": insert entry: unique violation"; err == nil || err.Error() != want || !errors.Is(err, cerrors.ErrConflict) {
		t.Fatalf("atomic batch error = %v, want %q", err, want)
	}
	if !threadEmpty(t, w, "b") {
		t.Fatal("the atomic batch was not rolled back")
	}
	// Not atomic: each entry is its own transaction.
	w = New(st, nil, Options{NewID: idSequence(idA, idA, idB)})
	b, err := w.StoreBatch(ctx, alice, items(), false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Succeeded != 2 || b.Message != "Stored 2/3 entries successfully" {
		t.Fatalf("batch = %+v", b)
	}
	if b.Items[0].ID != idA || b.Items[1].ID != "" || b.Items[1].Err == nil || b.Items[2].ID != idB {
		t.Fatalf("items = %+v", b.Items)
	}
	if got := get(t, st, alice, idB).Text; got != "three" {
		t.Fatalf("text = %q", got)
	}
}

func TestUpdateBatch(t *testing.T) {
	ctx := context.Background()
	rs := &racingStore{Store: openStore(t)}
	w := New(rs, nil, Options{})
	own := mustStore(t, w, alice, "u", "mine")
	theirs := mustStore(t, w, bob, "u", "theirs")
	if _, err := w.Share(ctx, bob, GrantInput{ContextID: theirs.ID, PrincipalType: PrincipalUser, PrincipalID: "alice", Permission: PermissionRead}); err != nil {
		t.Fatal(err)
	}
	items := []UpdateItem{
		{ContextID: own.ID, Update: textUpdate(t, "changed")},
		{ContextID: theirs.ID, Update: textUpdate(t, "changed")},
		{ContextID: " "},
	}

	// Atomic: invalid items refuse the batch before any write.
	_, err := w.UpdateBatch(ctx, alice, items, true)
	wantErr(t, err, cerrors.ErrInvalid, "Validation failed for 1 entries. First error at context_id  : context_id must be a non-empty string")
	// A refused entry rolls back the updates before it.
	_, err = w.UpdateBatch(ctx, alice, items[:2], true)
	wantErr(t, err, cerrors.ErrNotAuthorized, "Not authorized to modify context entry "+theirs.ID+" at index 1")
	if got := get(t, rs, alice, own.ID).Text; got != "mine" {
		t.Fatalf("text = %q: the atomic batch was not rolled back", got)
	}
	// A concurrent change fails an atomic batch without retries.
	rs.races = 1
	_, err = w.UpdateBatch(ctx, alice, items[:1], true)
	wantErr(t, err, cerrors.ErrConflict, "Concurrent modification during atomic batch update: context "+own.ID+" changed at index 0. Retry the request.")

	// Not atomic: each update is its own transaction, with retries.
	rs.races = 1
	b, err := w.UpdateBatch(ctx, alice, items, false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Succeeded != 1 || b.Message != "Updated 1/3 entries successfully" {
		t.Fatalf("batch = %+v", b)
	}
	if b.Items[0].Err != nil || !slices.Equal(b.Items[0].Fields, []string{"text_content"}) {
		t.Fatalf("item 0 = %+v", b.Items[0])
	}
	if b.Items[1].ID != theirs.ID || b.Items[1].Fields != nil || b.Items[1].Err.Error() != "Not authorized to modify context entry "+theirs.ID {
		t.Fatalf("item 1 = %+v", b.Items[1])
	}
	if b.Items[2].ID != " " || b.Items[2].Err == nil {
		t.Fatalf("item 2 = %+v", b.Items[2])
	}
	b, err = w.UpdateBatch(ctx, alice, items[1:], false)
	if err != nil || b.Message != "All updates failed validation or entry not found" {
		t.Fatalf("none applied: %+v, %v", b, err)
	}
	b, err = w.UpdateBatch(ctx, alice, items[2:], false)
	if err != nil || b.Message != "All updates failed validation" {
		t.Fatalf("all invalid: %+v, %v", b, err)
	}
}

func TestAtIndex(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{cerrors.New(cerrors.ErrNotAuthorized, "Only the owner may change the visibility of context x"), "Only the owner may change the visibility of context x (index 3)"},
		{cerrors.New(cerrors.ErrNotFound, "Context entry x not found"), "Context entry x not found at index 3"},
		{cerrors.New(cerrors.ErrNotAuthorized, "No"), "No at index 3"},
		{cerrors.Invalidf("bad"), "bad"},
		{errors.New("disk"), "disk"},
	} {
		if got := atIndex(c.err, 3).Error(); got != c.want {
			t.Errorf("atIndex(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

// failingStore wraps a real store so that the write of one entry fails as
// a database refusal would, after the entries before it were written in
// the same transaction.
type failingStore struct {
	persist.Store
	id string
}

type failingTx struct {
	persist.Tx
	id string
}

func (s *failingStore) Write(ctx context.Context, fn func(persist.Tx) error) error {
	return s.Store.Write(ctx, func(tx persist.Tx) error { return fn(&failingTx{Tx: tx, id: s.id}) })
}

func (t *failingTx) Update(ctx context.Context, id string, u persist.Update) (bool, error) {
	if id == t.id {
		return false, fmt.Errorf("update entry: %w", cerrors.ErrUnavailable)
	}
	return t.Tx.Update(ctx, id, u)
}

// An atomic update batch whose write the database refuses names the
// failing entry, as an atomic store batch does, and rolls back the
// updates before it.
func TestUpdateBatchNamesFailingEntry(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) persist.Store
	}{{"sqlite", openStore}, {"postgresql", openPostgres}} {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			fs := &failingStore{Store: b.open(t)}
			w := New(fs, nil, Options{})
			one := mustStore(t, w, alice, "f", "one")
			two := mustStore(t, w, alice, "f", "two")
			fs.id = two.ID
			_, err := w.UpdateBatch(ctx, alice, []UpdateItem{
				{ContextID: one.ID, Update: textUpdate(t, "changed")},
				{ContextID: two.ID, Update: textUpdate(t, "changed")},
			}, true)
			if want := "update batch: entry 1: "; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, cerrors.ErrUnavailable) {
				t.Fatalf("error = %v, want %q and ErrUnavailable", err, want)
			}
			if got := get(t, fs, alice, one.ID).Text; got != "one" {
				t.Fatalf("text = %q: the atomic batch was not rolled back", got)
			}
		})
	}
}
