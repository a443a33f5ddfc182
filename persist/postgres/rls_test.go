package postgres

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// openRLS opens a store with ENABLE_POSTGRESQL_RLS on a fresh schema, as a
// fresh role without SUPERUSER or BYPASSRLS; it returns the role's URL.
func openRLS(t *testing.T) (*Store, string, string) {
	t.Helper()
	url, schema := pgtest.Schema(t)
	roleURL := pgtest.Role(t, url, schema)
	st, err := Open(context.Background(), Options{URL: roleURL, Schema: schema, RLS: true, PoolMax: 8})
	if err != nil {
		t.Fatalf("open with RLS: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st, roleURL, schema
}

// TestPersistSuiteRLS: with the policies in force every storage behaviour
// is unchanged (the store binds each caller per transaction and reads its
// own feed unrestricted).
func TestPersistSuiteRLS(t *testing.T) {
	persisttest.Run(t, func(t *testing.T) persist.Store {
		st, _, _ := openRLS(t)
		return st
	})
}

// TestRLSDirectSQL: a direct SQL session of the store's role, with one
// principal's settings, gets no row of another principal's private
// entries (nor their tags or vectors), can change none of them, and a
// session that names no principal sees only public entries.
func TestRLSDirectSQL(t *testing.T) {
	ctx := context.Background()
	st, roleURL, schema := openRLS(t)
	e1 := persisttest.NewEntry(1, "t", "user", "alice") // private to alice
	e1.Tags = []string{"secret"}
	e2 := persisttest.NewEntry(2, "t", "user", "bob") // private to bob
	e3 := persisttest.NewEntry(3, "t", "user", "alice")
	e3.Visibility = "public"
	e4 := persisttest.NewEntry(4, "t", "user", "alice") // granted to group team
	persisttest.Insert(t, st, []persist.Entry{e1, e2, e3, e4}, map[string][]persist.Grant{
		persisttest.ID(4): {{PrincipalType: "group", PrincipalID: "team", Permission: "read", GrantedBy: "alice"}}})
	persisttest.SetEmbeddings(t, st, persisttest.ID(1), persisttest.Embeddings(2, []float32{1, 0}))

	conn, err := pgx.Connect(ctx, roleURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SET search_path = `+schema); err != nil {
		t.Fatal(err)
	}
	ids := func(sql string) []string {
		t.Helper()
		rows, err := conn.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		slices.Sort(out)
		return out
	}
	check := func(who string, want ...int) {
		t.Helper()
		got := ids(`SELECT id FROM context_entries`)
		if !slices.Equal(got, persisttest.IDs(want...)) {
			t.Fatalf("%s sees %v, want %v", who, got, persisttest.IDs(want...))
		}
	}
	check("a session without a principal", 3)
	if _, err := conn.Exec(ctx, `SELECT set_config('contextd.principal', 'bob', false)`); err != nil {
		t.Fatal(err)
	}
	check("bob", 2, 3)
	if got := ids(`SELECT context_entry_id FROM tags`); len(got) != 0 {
		t.Fatalf("bob sees tags of %v", got)
	}
	if got := ids(`SELECT context_id FROM embedding_chunks`); len(got) != 0 {
		t.Fatalf("bob sees vectors of %v", got)
	}
	tag, err := conn.Exec(ctx, `UPDATE context_entries SET text_content = 'pwned' WHERE id = $1`, persisttest.ID(1))
	if err != nil || tag.RowsAffected() != 0 {
		t.Fatalf("bob's update of alice's entry: %v rows, %v", tag.RowsAffected(), err)
	}
	tag, err = conn.Exec(ctx, `DELETE FROM context_entries WHERE id <> ''`)
	if err != nil || tag.RowsAffected() != 1 { // only his own entry 2
		t.Fatalf("bob's delete: %v rows, %v", tag.RowsAffected(), err)
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('contextd.groups', '["team"]', false)`); err != nil {
		t.Fatal(err)
	}
	check("bob in team", 3, 4)
	if _, err := conn.Exec(ctx, `SELECT set_config('contextd.principal', 'alice', false), set_config('contextd.groups', '', false)`); err != nil {
		t.Fatal(err)
	}
	check("alice", 1, 3, 4)
	if got := ids(`SELECT context_entry_id FROM tags`); !slices.Equal(got, persisttest.IDs(1)) {
		t.Fatalf("alice sees tags of %v", got)
	}
	if got, _ := st.Get(ctx, persist.Access{Principal: "alice"}, persisttest.IDs(1), persist.GetOptions{}); len(got) != 1 || got[0].Text != "entry 1" {
		t.Fatalf("alice's entry after bob's update: %+v", got)
	}
}

// TestRLSRefusesBypassRoles: a superuser connection never has policies
// applied, so Open refuses RLS on it with a message naming the setting.
func TestRLSRefusesBypassRoles(t *testing.T) {
	url, schema := pgtest.Schema(t)
	_, err := Open(context.Background(), Options{URL: url, Schema: schema, RLS: true})
	if err == nil || !strings.Contains(err.Error(), "option RLS needs a database role without SUPERUSER or BYPASSRLS") {
		t.Fatalf("open as superuser with RLS: %v", err)
	}
}
