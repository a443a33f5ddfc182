package webui_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/testtier"
)

// ScaleEnv sets the number of entries of TestBrowserPageLoadScale. The
// long tier's default, 2,000, keeps the test exercised within seconds;
// the figures of docs/web-ui.md are of CONTEXTD_UI_SCALE_ENTRIES=100000
// (seeding them takes minutes).
const ScaleEnv = "CONTEXTD_UI_SCALE_ENTRIES"

// ScaleDBEnv names a database file TestBrowserPageLoadScale seeds and
// keeps, so a second run measures without seeding again.
const ScaleDBEnv = "CONTEXTD_UI_SCALE_DB"

var scaleWords = strings.Fields(`deploy key vault cluster staging backup nightly replica primary index query
latency budget review meeting decision owner rollout canary migration schema column table customer invoice
payment refund ticket incident outage alert pager runbook restart worker queue batch export import token
secret rotation certificate expiry domain proxy cache memory disk network packet firewall policy audit`)

// TestBrowserPageLoadScale measures, in headless Chromium, how long the
// list and search pages take to load with many entries in the database
// (ScaleEnv): the browser's own navigation timing (request to response
// end, and to DOMContentLoaded), median of five loads each. It reports
// the figures and asserts nothing about them: wall time on the shared
// machine varies with the other jobs.
func TestBrowserPageLoadScale(t *testing.T) {
	testtier.Long(t)
	n := 2_000
	if v := os.Getenv(ScaleEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			t.Fatalf("%s=%q: want a number of at least 100", ScaleEnv, v)
		}
	}
	bctx := newBrowser(t)
	// ScaleDBEnv keeps the seeded database for the next run.
	db := os.Getenv(ScaleDBEnv)
	if db == "" {
		db = filepath.Join(t.TempDir(), "ctx.db")
	}
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: db, FTS: contextd.FTSConfig{Progress: io.Discard}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	ctx := as("alice")
	have := 0
	if st, err := eng.Statistics(ctx); err == nil {
		have = st.TotalEntries
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	atomic := true
	for done := have; done < n; done += 100 {
		items := make([]contextd.StoreBatchItem, min(100, n-done))
		for i := range items {
			var b strings.Builder
			for w := range 30 + rng.IntN(30) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(scaleWords[rng.IntN(len(scaleWords))])
			}
			fmt.Fprintf(&b, " entry %d", done+i)
			items[i] = contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{ThreadID: "thread-" + strconv.Itoa((done+i)%200),
				Source: []string{"agent", "user"}[i%2], Text: b.String(), Tags: []string{scaleWords[i%len(scaleWords)]}}}
		}
		res, err := eng.StoreBatch(ctx, contextd.StoreBatchRequest{Entries: items, Atomic: &atomic})
		if err != nil || !res.Success {
			t.Fatalf("seed at %d: %v %+v", done, err, res)
		}
	}
	t.Logf("seeded %d entries in %s", n-have, time.Since(start).Round(time.Second))
	// What the list page asks the engine, timed in-process.
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"list_threads limit 50", func() error {
			_, err := eng.ListThreads(ctx, contextd.ListThreadsRequest{Limit: 50})
			return err
		}},
		{"search_context limit 30", func() error {
			_, err := eng.Search(ctx, contextd.SearchRequest{Limit: 30})
			return err
		}},
		{"search_context tag, limit 100", func() error {
			_, err := eng.Search(ctx, contextd.SearchRequest{SearchFilter: contextd.SearchFilter{Tags: []string{"vault"}}, Limit: 100})
			return err
		}},
	} {
		var ds []time.Duration
		for range 5 {
			t0 := time.Now()
			if err := c.call(); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		t.Logf("%d entries, engine %-30s median %s", n, c.name, ds[2].Round(100*time.Microsecond))
	}
	base := serveAll(t, eng)
	login(t, bctx, base, "tok-alice")
	pages := []struct{ name, path string }{
		{"list, newest 30", "/ui/"},
		{"list, one thread", "/ui/?thread=thread-42"},
		{"list, 100 per page, tag filter", "/ui/?tags=vault&limit=100"},
		{"list, page at offset 5000", "/ui/?offset=5000"},
		{"search, full text", "/ui/search?mode=fts&q=certificate+rotation"},
		{"search, full text phrase", "/ui/search?mode=fts&fts_mode=phrase&q=deploy+key"},
		{"search, hybrid (full-text leg)", "/ui/search?mode=hybrid&q=payment+refund"},
		{"threads", "/ui/threads"},
		{"statistics", "/ui/stats"},
	}
	for _, p := range pages {
		var server, dom []float64
		for range 5 {
			nt := measure(t, bctx, base+p.path)
			server, dom = append(server, nt.Server), append(dom, nt.DOM)
		}
		slices.Sort(server)
		slices.Sort(dom)
		t.Logf("%d entries, %-32s median server %6.1f ms, DOMContentLoaded %6.1f ms (min %.1f, max %.1f)",
			n, p.name, server[2], dom[2], dom[0], dom[4])
	}
}
