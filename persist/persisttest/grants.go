package persisttest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func (s suite) grants(t *testing.T) {
	t.Run("Lifecycle", s.grantsLifecycle)
	t.Run("Inserted", s.grantsInserted)
}

// grantsLifecycle: Grant is idempotent per (type, principal, permission),
// case-sensitive, logs one OpGrant row per grant it writes and leaves the
// entry's version and updated_at alone; Grants lists in code-point order;
// Ungrant removes exactly one grant; grants go with their entry.
func (s suite) grantsLifecycle(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	e := NewEntry(1, "t", "user", "alice")
	Insert(t, st, []persist.Entry{e}, nil)
	before, found, err := st.State(ctx, alice, e.ID)
	if err != nil || !found {
		t.Fatalf("state: %v %v", found, err)
	}
	logged := len(changes(t, st))
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grant := func(ptype, pid, perm string) bool {
		t.Helper()
		var created bool
		write(t, st, func(ctx context.Context, tx persist.Tx) error {
			var err error
			created, err = tx.Grant(ctx, e.ID, persist.Grant{PrincipalType: ptype, PrincipalID: pid, Permission: perm, GrantedBy: "alice", CreatedAt: at})
			return err
		})
		return created
	}
	tests := []struct {
		ptype, pid, perm string
		created          bool
	}{
		{"user", "bob", "read", true},
		{"user", "bob", "read", false}, // idempotent
		{"user", "bob", "write", true}, // a separate grant
		{"user", "Bob", "read", true},  // case-sensitive
		{"group", "é-team", "read", true},
		{"group", "a-team", "write", true},
	}
	for _, tc := range tests {
		if got := grant(tc.ptype, tc.pid, tc.perm); got != tc.created {
			t.Fatalf("grant %v: created %v, want %v", tc, got, tc.created)
		}
	}
	cs := changes(t, st)
	if n := len(cs) - logged; n != 5 {
		t.Fatalf("change-log rows for 5 new grants: got %d", n)
	}
	for _, c := range cs[logged:] {
		if c.Op != persist.OpGrant || c.EntryID != e.ID {
			t.Fatalf("grant logged as %+v", c)
		}
	}
	gs, err := st.Grants(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gs {
		got = append(got, g.PrincipalType+"/"+g.PrincipalID+"/"+g.Permission)
		if g.GrantedBy != "alice" || !g.CreatedAt.Equal(at) {
			t.Fatalf("grant %+v: granted_by or created_at lost", g)
		}
	}
	want := []string{"group/a-team/write", "group/é-team/read", "user/Bob/read", "user/bob/read", "user/bob/write"}
	if !slices.Equal(got, want) {
		t.Fatalf("order: got %q, want %q (code-point order)", got, want)
	}
	// The grants take effect in the read predicate.
	if state, _, _ := st.State(ctx, persist.Access{Principal: "carol", Groups: []string{"a-team"}}, e.ID); !state.Readable || !state.Writable {
		t.Fatalf("group write grant: readable=%v writable=%v", state.Readable, state.Writable)
	}
	after, _, _ := st.State(ctx, alice, e.ID)
	if after.Version != before.Version {
		t.Fatalf("a grant changed the version: %d -> %d", before.Version, after.Version)
	}
	if got, _ := st.Get(ctx, alice, []string{e.ID}, persist.GetOptions{}); !got[0].UpdatedAt.Equal(e.UpdatedAt) {
		t.Fatalf("a grant changed updated_at: %v -> %v", e.UpdatedAt, got[0].UpdatedAt)
	}
	ungrant := func(pid, perm string) bool {
		t.Helper()
		var removed bool
		write(t, st, func(ctx context.Context, tx persist.Tx) error {
			var err error
			removed, err = tx.Ungrant(ctx, e.ID, "user", pid, perm)
			return err
		})
		return removed
	}
	logged = len(changes(t, st))
	if !ungrant("bob", "read") || ungrant("bob", "read") || ungrant("nobody", "write") {
		t.Fatalf("ungrant: want exactly one removal")
	}
	if cs := changes(t, st); len(cs)-logged != 1 || cs[logged].Op != persist.OpGrant {
		t.Fatalf("change-log rows for one removal: %v", cs[logged:])
	}
	if state, _, _ := st.State(ctx, bob, e.ID); !state.Readable {
		t.Fatalf("bob's write grant must still allow reading")
	}
	if gs, _ := st.Grants(ctx, e.ID); len(gs) != 4 {
		t.Fatalf("grants after one removal: %v", gs)
	}
	if after, _, _ := st.State(ctx, alice, e.ID); after.Version != before.Version {
		t.Fatalf("an ungrant changed the version: %d -> %d", before.Version, after.Version)
	}
	deleteIDs(t, st, e.ID)
	if gs, _ := st.Grants(ctx, e.ID); len(gs) != 0 {
		t.Fatalf("grants survive their entry: %v", gs)
	}
}

// grantsInserted: grants stored with Insert are listed, log no row of
// their own, and take their created_at from the entry when unset.
func (s suite) grantsInserted(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice")}, map[string][]persist.Grant{ID(1): {
		{PrincipalType: "user", PrincipalID: "bob", Permission: "write", GrantedBy: "alice"},
		{PrincipalType: "group", PrincipalID: "team", Permission: "read", GrantedBy: "alice", CreatedAt: at},
	}})
	if cs := changes(t, st); len(cs) != 1 || cs[0].Op != persist.OpInsert {
		t.Fatalf("change log = %v, want the insert only", cs)
	}
	gs, err := st.Grants(ctx, ID(1))
	if err != nil || len(gs) != 2 {
		t.Fatalf("grants = %v, %v", gs, err)
	}
	if g := gs[0]; g.PrincipalType != "group" || g.PrincipalID != "team" || g.Permission != "read" || !g.CreatedAt.Equal(at) {
		t.Fatalf("grant 0 = %+v", g)
	}
	if g := gs[1]; g.PrincipalType != "user" || g.PrincipalID != "bob" || g.Permission != "write" || !g.CreatedAt.Equal(At(1)) {
		t.Fatalf("grant 1 = %+v", g)
	}
	// The same grant again is not created.
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		created, err := tx.Grant(ctx, ID(1), persist.Grant{PrincipalType: "user", PrincipalID: "bob", Permission: "write", GrantedBy: "x", CreatedAt: at})
		if err == nil && created {
			t.Errorf("an inserted grant was granted again")
		}
		return err
	})
}
