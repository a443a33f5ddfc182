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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	neturl "net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// LiteEnv names the variable holding the connection string of the PGlite
// server ./scripts/test.sh starts (scripts/pglite.sh): PostgreSQL 18 with
// pgvector, for the tests of native vector search that the Debian
// PostgreSQL 15 cluster (no pgvector) cannot run.
const LiteEnv = "CONTEXTD_TEST_PGLITE_URL"

// LiteEngineConns is the pool size of an engine's store on PGlite: one.
// PGlite runs every connection in one backend session and interleaves
// their statements outside transactions, so two statements in flight at
// once (hybrid search's legs) can break each other there, where
// PostgreSQL gives each connection a session of its own. With two, a
// hybrid call's full-text leg failed reading the full-text state while
// the semantic leg ran beside it (TestHybridResponseShape in CI, once in
// some 600 runs under load, 2026-12-06).
const LiteEngineConns = 1

// liteMu serializes the tests of this process on PGlite, and a lock file
// (flock) those of every test binary (go test runs packages in parallel):
// its one backend session is shared by every connection (search_path,
// prepared statements; its advisory locks exclude nothing), so two tests
// at once would see each other's tables.
var liteMu sync.Mutex

// lockLite takes the cross-process lock of the PGlite server at url and
// returns its release.
func lockLite(t testing.TB, url string) func() {
	t.Helper()
	h := sha256.Sum256([]byte(url))
	path := filepath.Join(os.TempDir(), "contextd-pglite-"+hex.EncodeToString(h[:8])+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("pgtest: PGlite lock file: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("pgtest: lock PGlite: %v", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// Lite returns the PGlite server's connection string and the schema a
// test uses there: public, dropped and recreated empty first (a schema of
// its own per test, as Schema gives, cannot work where search_path is one
// setting for every connection). The test holds the server until it ends;
// open at most 2 connections (the server takes 16, with -m 16, as headroom
// for closed ones it has not yet seen close). It skips t
// when no PGlite server is configured.
func Lite(t testing.TB) (url, schema string) {
	t.Helper()
	url = os.Getenv(LiteEnv)
	if url == "" {
		t.Skipf("no PGlite test server (pgvector): %s is not set (./scripts/test.sh starts one with scripts/pglite.sh and sets it)", LiteEnv)
	}
	liteMu.Lock()
	t.Cleanup(liteMu.Unlock)
	t.Cleanup(lockLite(t, url))
	reset := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return liteExec(ctx, url, `DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public; SET search_path TO public`)
	}
	if err := reset(); err != nil {
		t.Fatalf("pgtest: reset PGlite schema public: %v", err)
	}
	t.Cleanup(func() {
		if err := reset(); err != nil {
			t.Errorf("pgtest: reset PGlite schema public: %v", err)
		}
	})
	return url, "public"
}

// liteExec is exec for PGlite, trying the connection again while ctx
// lasts when it cannot be opened: the server resets a connection over its
// limit at accept, and counts a closed one until its busy event loop gets
// to the close (CI, 2026-12-03: "failed to receive message: ... connection
// reset by peer" in the schema reset just after a test's store closed,
// with -m 4; scripts/pglite.sh now gives 16). Only the connection is
// retried: once it is open, a failing statement is returned as it is.
func liteExec(ctx context.Context, url, sql string) error {
	for {
		err := exec(ctx, url, sql)
		var ce *pgconn.ConnectError
		if err == nil || !errors.As(err, &ce) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}
