package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func TestGrantsLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	e := entry(1, "t", "user", "alice")
	insert(t, s, []persist.Entry{e}, nil)
	before, found, err := s.State(ctx, persist.Access{Principal: "alice"}, e.ID)
	if err != nil || !found {
		t.Fatalf("state: %v %v", found, err)
	}
	changes := func() []persist.Change {
		t.Helper()
		cs, err := s.Changes(ctx, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	logged := len(changes())
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grant := func(ptype, pid, perm string) bool {
		t.Helper()
		var created bool
		err := s.Write(ctx, func(tx persist.Tx) error {
			var err error
			created, err = tx.Grant(ctx, e.ID, persist.Grant{PrincipalType: ptype, PrincipalID: pid, Permission: perm, GrantedBy: "alice", CreatedAt: at})
			return err
		})
		if err != nil {
			t.Fatalf("grant: %v", err)
		}
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
	if n := len(changes()) - logged; n != 5 {
		t.Fatalf("change-log rows for 5 new grants: got %d", n)
	}
	gs, err := s.Grants(ctx, e.ID)
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
	if !eqStrings(got, want) {
		t.Fatalf("order: got %q, want %q (code-point order)", got, want)
	}
	// The grants take effect in the read predicate.
	if st, _, _ := s.State(ctx, persist.Access{Principal: "carol", Groups: []string{"a-team"}}, e.ID); !st.Readable || !st.Writable {
		t.Fatalf("group write grant: readable=%v writable=%v", st.Readable, st.Writable)
	}
	after, _, _ := s.State(ctx, persist.Access{Principal: "alice"}, e.ID)
	if after.Version != before.Version {
		t.Fatalf("a grant changed the version: %d -> %d", before.Version, after.Version)
	}
	ungrant := func(pid, perm string) bool {
		t.Helper()
		var removed bool
		err := s.Write(ctx, func(tx persist.Tx) error {
			var err error
			removed, err = tx.Ungrant(ctx, e.ID, "user", pid, perm)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return removed
	}
	logged = len(changes())
	if !ungrant("bob", "read") || ungrant("bob", "read") || ungrant("nobody", "write") {
		t.Fatalf("ungrant: want exactly one removal")
	}
	if n := len(changes()) - logged; n != 1 {
		t.Fatalf("change-log rows for one removal: got %d", n)
	}
	if st, _, _ := s.State(ctx, persist.Access{Principal: "bob"}, e.ID); !st.Readable {
		t.Fatalf("bob's write grant must still allow reading")
	}
	if err := s.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, []string{e.ID}); return err }); err != nil {
		t.Fatal(err)
	}
	if gs, _ := s.Grants(ctx, e.ID); len(gs) != 0 {
		t.Fatalf("grants survive their entry: %v", gs)
	}
}
