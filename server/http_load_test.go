package server_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/contextd/contextd/server/auth"
)

// TestHTTPLoad runs 8 concurrent MCP clients over loopback HTTP, each a
// different JWT principal, mixing stores, updates, fetches, searches and
// statistics. It fails on any error, any lost or stale write, and any
// result naming another principal's entry, and logs requests/s and latency
// percentiles (the README figures).
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

	type stats struct {
		lat  []time.Duration
		errs []string
	}
	results := make([]stats, clients)
	tokens := make([]string, clients)
	for w := range tokens {
		tokens[w] = sg.token(t, claimsFor(fmt.Sprintf("user%d", w), fmt.Sprintf("grp%d", w%2)))
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st := &results[w]
			fail := func(format string, args ...any) { st.errs = append(st.errs, fmt.Sprintf(format, args...)) }
			me := fmt.Sprintf("user%d", w)
			c, err := dialMCP(t, env.url, tokens[w])
			if err != nil {
				fail("connect: %v", err)
				return
			}
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			texts := map[string]string{} // id -> latest text this client wrote
			var ids []string
			timed := func(tool string, args M) (M, string, error) {
				t0 := time.Now()
				m, msg, err := c.call(tool, args)
				st.lat = append(st.lat, time.Since(t0))
				return m, msg, err
			}
			owned := func(tool string, m M) {
				found := map[string]bool{}
				collectIDs(m, found)
				for id := range found {
					if _, mine := texts[id]; !mine {
						fail("%s: %s saw %s, not its own", tool, me, id)
					}
				}
			}
			for n := 0; time.Now().Before(deadline); n++ {
				op := rng.IntN(10)
				if len(ids) == 0 {
					op = 0
				}
				switch {
				case op < 4:
					text := fmt.Sprintf("%s note %d %d", me, n, rng.Int())
					m, msg, err := timed("store_context", M{"thread_id": fmt.Sprintf("%s-t%d", me, n%5), "source": "user", "text": text, "deduplicate": false})
					if err != nil || msg != "" {
						fail("store: %v %s", err, msg)
						continue
					}
					id := m["context_id"].(string)
					texts[id] = text
					ids = append(ids, id)
				case op < 5:
					id := ids[rng.IntN(len(ids))]
					text := fmt.Sprintf("%s edit %d", me, n)
					if _, msg, err := timed("update_context", M{"context_id": id, "text": text}); err != nil || msg != "" {
						fail("update: %v %s", err, msg)
						continue
					}
					texts[id] = text
				case op < 7:
					id := ids[rng.IntN(len(ids))]
					m, msg, err := timed("get_context_by_ids", M{"context_ids": []string{id}})
					if err != nil || msg != "" {
						fail("get: %v %s", err, msg)
						continue
					}
					list := m["result"].([]any)
					if len(list) != 1 || list[0].(M)["text_content"] != texts[id] {
						fail("get %s: got %v, want text %q", id, list, texts[id])
					}
					owned("get_context_by_ids", m)
				case op < 9:
					m, msg, err := timed("search_context", M{"limit": 20})
					if err != nil || msg != "" {
						fail("search: %v %s", err, msg)
						continue
					}
					owned("search_context", m)
				default:
					m, msg, err := timed("get_statistics", nil)
					if err != nil || msg != "" {
						fail("stats: %v %s", err, msg)
						continue
					}
					if int(m["total_entries"].(float64)) != len(ids) {
						fail("stats: %s sees %v entries, stored %d", me, m["total_entries"], len(ids))
					}
				}
			}
			// No lost writes: everything this client stored reads back with
			// the last text it wrote.
			for i := 0; i < len(ids); i += 100 {
				batch := ids[i:min(i+100, len(ids))]
				m, msg, err := c.call("get_context_by_ids", M{"context_ids": batch})
				if err != nil || msg != "" {
					fail("final get: %v %s", err, msg)
					continue
				}
				list := m["result"].([]any)
				if len(list) != len(batch) {
					fail("final get: %d of %d entries", len(list), len(batch))
				}
				for _, it := range list {
					e := it.(M)
					if e["text_content"] != texts[e["id"].(string)] {
						fail("final get %s: stale text %q", e["id"], e["text_content"])
					}
				}
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for w, r := range results {
		for _, e := range r.errs[:min(len(r.errs), 5)] {
			t.Errorf("client %d: %s", w, e)
		}
		all = append(all, r.lat...)
	}
	if t.Failed() || len(all) == 0 {
		t.FailNow()
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	t.Logf("load on %s: %d clients, %s, %d requests, %.0f req/s; latency p50 %s p90 %s p99 %s max %s",
		env.eng.Backend(), clients, elapsed.Round(time.Millisecond), len(all), float64(len(all))/elapsed.Seconds(),
		pct(0.50).Round(10*time.Microsecond), pct(0.90).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond),
		slices.Max(all).Round(10*time.Microsecond))
}
