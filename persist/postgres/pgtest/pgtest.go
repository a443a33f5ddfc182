// Package pgtest owns the PostgreSQL fixtures of the test suite: it finds
// the throwaway server ./scripts/test.sh starts (CONTEXTD_TEST_POSTGRES_URL)
// and gives each test a fresh, empty schema of its own, dropped when the
// test ends, so tests never see each other's rows and can run in parallel.
// Without the variable (plain `go test ./...`) PostgreSQL tests skip with
// a message saying how to run them.
//
//	func TestSomething(t *testing.T) {
//		url, schema := pgtest.Schema(t) // skips without a server
//		st, err := postgres.Open(ctx, postgres.Options{URL: url, Schema: schema})
//		...
//	}
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	neturl "net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variable holding the test server's connection string.
const Env = "CONTEXTD_TEST_POSTGRES_URL"

// URL returns the test server's connection string, or skips t when none
// is configured.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skipf("no PostgreSQL test server: %s is not set (./scripts/test.sh starts a throwaway PostgreSQL 15 cluster and sets it)", Env)
	}
	return u
}

// Schema creates a fresh schema on the test server and returns the URL and
// the schema's name; the schema and everything in it are dropped when t
// ends. It skips t when no server is configured and fails it when the
// server cannot be reached.
func Schema(t testing.TB) (url, schema string) {
	t.Helper()
	url = URL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema = "t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec(ctx, url, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, url, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	return url, schema
}

// Exec runs one statement on a connection of its own (set-up a test needs
// outside the store, e.g. a role for row-level security).
func Exec(t testing.TB, url, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec(ctx, url, sql, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

func exec(ctx context.Context, url, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

// Role creates a login role without SUPERUSER or BYPASSRLS that may create
// tables in schema, and returns url rewritten to connect as it (the test
// server trusts loopback connections). The role and everything it owns are
// dropped when t ends. Row-level security applies only to such roles.
func Role(t testing.TB, url, schema string) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	role := "r_" + hex.EncodeToString(b[:])
	Exec(t, url, `CREATE ROLE `+role+` LOGIN NOSUPERUSER NOBYPASSRLS`)
	Exec(t, url, `GRANT USAGE, CREATE ON SCHEMA `+schema+` TO `+role)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, url, `DROP OWNED BY `+role+` CASCADE`); err != nil {
			t.Errorf("pgtest: drop objects of %s: %v", role, err)
		}
		if err := exec(ctx, url, `DROP ROLE `+role); err != nil {
			t.Errorf("pgtest: drop role %s: %v", role, err)
		}
	})
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", Env, err)
	}
	u.User = neturl.User(role)
	return u.String()
}
