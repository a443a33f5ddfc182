package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// A write of 100 entries, each with tags, a grant, chunk vectors and a
// node summary, sends its statements in a few round trips, not one a
// statement; a read in the transaction sees the queued rows; a queued
// statement that fails fails the write with its own words and kind, and
// leaves nothing behind; arguments past pipeBytes are sent at once.
func TestPipelinedWrite(t *testing.T) {
	st := open(t, Options{})
	ctx := context.Background()
	alice := persist.Access{Principal: "alice"}
	const n = 100
	entry := func(i int) persist.Entry {
		e := persisttest.NewEntry(i, "t", "user", "alice")
		e.Tags = []string{"b", "a"}
		return e
	}
	var trips int
	err := st.Write(ctx, func(ptx persist.Tx) error {
		for i := 1; i <= n; i++ {
			e := entry(i)
			g := []persist.Grant{{PrincipalType: "group", PrincipalID: "team", Permission: "read", GrantedBy: "alice"}}
			if err := ptx.Insert(ctx, &e, g); err != nil {
				return err
			}
			if err := ptx.AddEmbeddings(ctx, e.ID, persisttest.Embeddings(4, []float32{1, 0, 0, float32(i)})); err != nil {
				return err
			}
			if err := ptx.ReplaceNodeSummaries(ctx, e.ID, []persist.NodeSummary{{NodeID: "n1", Start: 0, End: 1, Summary: "s"}}); err != nil {
				return err
			}
		}
		trips = ptx.(*tx).tx.trips
		got, err := ptx.Get(ctx, alice, []string{persisttest.ID(n)}, persist.GetOptions{})
		if err != nil {
			return err
		}
		if len(got) != 1 || strings.Join(got[0].Tags, ",") != "a,b" {
			t.Errorf("read in the transaction: %+v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The change-log head; every other statement waits for the read.
	if trips > 1 {
		t.Errorf("%d round trips for the writes of %d entries", trips, n)
	}
	team := persist.Access{Principal: "bob", Groups: []string{"team"}}
	if got, err := st.Get(ctx, team, persisttest.IDs(1, n), persist.GetOptions{}); err != nil || len(got) != 2 {
		t.Fatalf("committed entries readable through their grant: %d (%v)", len(got), err)
	}
	if nodes, err := st.NodeSummaries(ctx, persisttest.ID(n)); err != nil || len(nodes) != 1 {
		t.Fatalf("node summaries: %v (%v)", nodes, err)
	}

	// A duplicate id fails at the next round trip: the commit's.
	err = st.Write(ctx, func(ptx persist.Tx) error {
		e, dup := entry(n+1), entry(n)
		if err := ptx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return ptx.Insert(ctx, &dup, nil)
	})
	if !errors.Is(err, cerrors.ErrConflict) || !strings.Contains(err.Error(), "insert entry") {
		t.Fatalf("duplicate insert: %v, want a conflict naming the insert", err)
	}
	if _, found, err := st.State(ctx, alice, persisttest.ID(n+1)); err != nil || found {
		t.Fatalf("entry of the failed write: found %v (%v)", found, err)
	}

	// A large text goes at once.
	err = st.Write(ctx, func(ptx persist.Tx) error {
		e := entry(n + 2)
		e.Text = strings.Repeat("x", pipeBytes)
		if err := ptx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		if p := ptx.(*tx).tx; p.bytes >= len(e.Text) || p.queued("insert entry") {
			t.Errorf("%d bytes held back after an entry of %d", p.bytes, len(e.Text))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A write gathering rows of several batch items sets one savepoint per
// round trip, at most maxSavepoints of them; past that its rows go one
// statement each, and a failure there still names its own item.
func TestGatheredSavepointsBounded(t *testing.T) {
	st := open(t, Options{})
	ctx := context.Background()
	alice := persist.Access{Principal: "alice"}
	defer func(n int) { maxSavepoints = n }(maxSavepoints)
	maxSavepoints = 2
	insert := func(ptx persist.Tx, item, id int) error {
		e := persisttest.NewEntry(id, "t", "user", "alice")
		e.Tags = []string{"x"}
		return ptx.Insert(persist.WithItem(ctx, item), &e, nil)
	}
	// rounds stores entries first.. two items a round trip: the read
	// sends what waits, two items' rows gathered.
	rounds := func(ptx persist.Tx, n, first int) error {
		for round := range n {
			for k := range 2 {
				if err := insert(ptx, 2*round+k, first+2*round+k); err != nil {
					return err
				}
			}
			if _, err := ptx.Get(ctx, alice, []string{persisttest.ID(1)}, persist.GetOptions{}); err != nil {
				return err
			}
		}
		return nil
	}
	var saved int
	err := st.Write(ctx, func(ptx persist.Tx) error {
		err := rounds(ptx, 4, 1)
		saved = ptx.(*tx).tx.savepoints
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if saved != 2 {
		t.Errorf("%d savepoints, want the bound 2", saved)
	}
	if got, err := st.Get(ctx, alice, persisttest.IDs(1, 2, 3, 4, 5, 6, 7, 8), persist.GetOptions{}); err != nil || len(got) != 8 {
		t.Fatalf("stored %d of 8 (%v)", len(got), err)
	}
	err = st.Write(ctx, func(ptx persist.Tx) error {
		if err := rounds(ptx, 3, 9); err != nil {
			return err
		}
		// Past the bound: item 7 repeats an id stored before.
		if err := insert(ptx, 6, 15); err != nil {
			return err
		}
		return insert(ptx, 7, 3)
	})
	var ie *persist.ItemError
	if !errors.As(err, &ie) || ie.Item != 7 || !errors.Is(err, cerrors.ErrConflict) {
		t.Fatalf("duplicate past the bound: %v, want item 7's conflict", err)
	}
}
