package persisttest

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// batchErr is the whole text of an atomic batch's duplicate-id failure:
// the failing item, the backend's name, what failed and the kind in fixed
// words, never the driver's message (which quotes tables and constraints).
var batchErr = regexp.MustCompile(`^entry (\d+): [a-z]+: insert entry: unique violation$`)

// entriesAtomicBatch: a batch written in one transaction, each item's
// writes made with persist.WithItem and its failure wrapped with
// persist.AtItem (as store_context_batch with atomic=true does), fails
// with "entry N: " naming the item whose statement the database refused,
// whether the store reports the failure at once (SQLite), at the commit
// or in a later item's read (PostgreSQL's pipeline); nothing of the batch
// is stored.
func (s suite) entriesAtomicBatch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	type step func(ctx context.Context, tx persist.Tx) error
	insert := func(n int) step {
		return func(ctx context.Context, tx persist.Tx) error {
			e := NewEntry(n, "t", "user", "alice")
			e.Tags = []string{"b", "a"}
			return tx.Insert(ctx, &e, []persist.Grant{{PrincipalType: "user", PrincipalID: "bob", Permission: "read", GrantedBy: "alice"}})
		}
	}
	read := func(ctx context.Context, tx persist.Tx) error {
		_, err := tx.Get(ctx, alice, IDs(1, 2), persist.GetOptions{})
		return err
	}
	batch := func(steps ...step) error {
		return st.Write(ctx, func(tx persist.Tx) error {
			for i, f := range steps {
				if err := f(persist.WithItem(ctx, i), tx); err != nil {
					return persist.AtItem(i, err)
				}
			}
			return nil
		})
	}
	for _, c := range []struct {
		name      string
		committed []int // entries stored before the batch
		steps     []step
		want      string // the failing item
		fresh     []int  // the entries of the batch not stored before
	}{
		// Nothing reads after the duplicate: a pipelined store reports
		// it at the commit.
		{"at commit", nil, []step{insert(1), insert(2), insert(1), insert(3)}, "2", []int{1, 2, 3}},
		// Item 2 reads first: the read sends item 1's statements.
		{"in a later read", nil, []step{insert(1), insert(1), read, insert(3)}, "1", []int{1, 3}},
		// The duplicate of a committed entry.
		{"committed id", []int{5}, []step{insert(4), insert(5), insert(6)}, "1", []int{4, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range c.committed {
				Insert(t, st, []persist.Entry{NewEntry(n, "t", "user", "alice")}, nil)
			}
			before, err := st.LastSeq(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = batch(c.steps...)
			if err == nil {
				t.Fatal("duplicate id accepted")
			}
			m := batchErr.FindStringSubmatch(err.Error())
			if m == nil || m[1] != c.want {
				t.Fatalf("error %q, want %q", err, "entry "+c.want+": <backend>: insert entry: unique violation")
			}
			var ie *persist.ItemError
			if !errors.As(err, &ie) || !errors.Is(err, cerrors.ErrConflict) {
				t.Fatalf("error %v: an ItemError %v, a conflict %v", err, errors.As(err, &ie), errors.Is(err, cerrors.ErrConflict))
			}
			// Nothing of the failed batch is stored.
			if seq, err := st.LastSeq(ctx); err != nil || seq != before {
				t.Fatalf("last seq %d (%v) after the failed batch, %d before", seq, err, before)
			}
			for _, n := range c.fresh {
				if _, found, err := st.State(ctx, alice, ID(n)); err != nil || found {
					t.Fatalf("entry %d of the failed batch: found %v (%v)", n, found, err)
				}
			}
		})
	}

	// A write without items fails with the store's error alone.
	err := st.Write(ctx, func(tx persist.Tx) error {
		e, dup := NewEntry(7, "t", "user", "alice"), NewEntry(5, "t", "user", "alice")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return tx.Insert(ctx, &dup, nil)
	})
	var ie *persist.ItemError
	if err == nil || errors.As(err, &ie) || !errors.Is(err, cerrors.ErrConflict) {
		t.Fatalf("duplicate insert outside a batch: %v", err)
	}
}
