package server_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/loadtest"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/contextd/contextd/server/auth"
)

// TestHTTPLoad runs 8 concurrent MCP clients over loopback HTTP, each a
// different JWT principal, mixing stores, updates, deletes, fetches, every
// search tool, grep and statistics (internal/loadtest, the load `contextd
// bench --load` runs). It fails on any error, any lost, stale or
// resurrected write, and any result naming another principal's entry, and
// logs requests/s and latency percentiles per tool.
//
// The duration is CONTEXTD_LOAD_DURATION (a Go duration) when set, else
// 60s in the long tier (CONTEXTD_LONG=1, internal/testtier) and 3s in the
// quick tier: the 60-second run gives the README figures, while 3s still
// exercises every check (isolation, lost writes, errors) on each `go test
// ./...` at a twentieth of the cost. CONTEXTD_LOAD_CLIENTS overrides the
// number of clients.
func TestHTTPLoad(t *testing.T) {
	runHTTPLoad(t, 8, nil)
}

// TestHTTPLoadPostgreSQL is the same load with 16 clients on a PostgreSQL
// store (the test script's server; skipped without one).
func TestHTTPLoadPostgreSQL(t *testing.T) {
	pgtest.URL(t)
	runHTTPLoad(t, 16, openPostgresStore)
}

// runHTTPLoad runs the load with clients clients on the store open gives
// (a SQLite file when nil).
func runHTTPLoad(t *testing.T, clients int, open func(t testing.TB) persist.Store) {
	dur := 3 * time.Second
	if testtier.On(t) {
		dur = 60 * time.Second
	}
	if v := os.Getenv("CONTEXTD_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CONTEXTD_LOAD_DURATION=%q: %v", v, err)
		}
		dur = d
	}
	if v := os.Getenv("CONTEXTD_LOAD_CLIENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 256 {
			t.Fatalf("CONTEXTD_LOAD_CLIENTS=%q: want 1 to 256", v)
		}
		clients = n
	}
	sg := newSigner(t, "k1")
	ac := auth.Config{Provider: "jwt", JWT: auth.JWTConfig{
		PublicKey: sg.publicPEM(t), Issuer: testIssuer, Audience: testAudience,
	}}
	var env *httpEnv
	if open == nil {
		env = newHTTPEnv(t, ac, contextd.Config{})
	} else {
		env = newHTTPEnvStore(t, open(t), ac, contextd.Config{})
	}

	res, err := loadtest.Run(context.Background(), loadtest.Options{
		URL: env.url, Clients: clients, Duration: dur, Seed: 7,
		Token: func(i int) (string, error) {
			return sg.token(t, claimsFor(fmt.Sprintf("user%d", i), fmt.Sprintf("grp%d", i%2))), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	res.Markdown(&table)
	t.Logf("load on %s:\n%s", env.eng.Backend(), table.String())
	if msg := res.Failed(); msg != "" {
		t.Fatal(msg)
	}
	if res.Writes == 0 || res.Verified == 0 {
		t.Fatalf("the load wrote %d times and verified %d entries", res.Writes, res.Verified)
	}
}
