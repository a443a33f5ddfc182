package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
)

// pageRig opens FullText over one store and directory in a given mode
// and collects the progress it prints.
type pageRig struct {
	t        *testing.T
	st       persist.Store
	dir      string
	w        *pageWorld
	progress bytes.Buffer
}

// newPageRig stores entries [from, from+n) of a world of seed.
func newPageRig(t *testing.T, seed uint64, from, n int) *pageRig {
	dir := t.TempDir()
	r := &pageRig{t: t, st: testStore(t, dir), dir: filepath.Join(dir, "idx"), w: newPageWorld(seed)}
	r.w.insert(t, r.st, from, from+n)
	return r
}

func (r *pageRig) open(mode FullTextOptions) *FullText {
	r.t.Helper()
	r.progress.Reset()
	mode.Dir, mode.Progress = r.dir, &r.progress
	ft, err := OpenFullText(context.Background(), r.st, follow.NewFeed(r.st), mode)
	if err != nil {
		r.t.Fatal(err)
	}
	waitPages(r.t, ft)
	return ft
}

// waitPages waits for search_context's catalog of ft (if it has one) to
// be rebuilt in the background, and fails unless it then serves pages.
func waitPages(t testing.TB, ft *FullText) {
	t.Helper()
	if ft.pages != nil {
		ft.pages.wait()
	}
	if cat, _ := ft.pageCatalog(); cat == nil || !cat.MetaServed() {
		t.Fatal("no catalog serves search_context's pages")
	}
}

func (r *pageRig) close(ft *FullText) {
	r.t.Helper()
	if err := ft.Close(); err != nil {
		r.t.Fatal(err)
	}
}

// rebuilt reports whether the last open rebuilt search_context's catalog
// from SQL, and why.
func (r *pageRig) rebuilt() (bool, string) {
	for line := range strings.Lines(r.progress.String()) {
		if rest, ok := strings.CutPrefix(line, "contextd: search_context catalog: "); ok {
			if why, ok := strings.CutSuffix(strings.TrimSpace(rest), "; rebuilding from SQL"); ok {
				return true, why
			}
		}
	}
	return false, ""
}

var nativeMode = FullTextOptions{Backend: Native}

// TestPageCatalogRestart_B2: the native backend's catalog is saved on
// close and loaded at the next start-up without a SQL scan, replaying
// the writes made while no engine ran; a snapshot that is corrupt
// (header, body, truncated), foreign (another database's) or missing is
// rebuilt from SQL with the reason on the progress writer, and the pages
// equal SQL's every time.
func TestPageCatalogRestart_B2(t *testing.T) {
	r := newPageRig(t, 11, 0, 200)
	ft := r.open(nativeMode)
	if ok, why := r.rebuilt(); !ok || why != "no snapshot" {
		t.Fatalf("first start-up: rebuilt %v (%q), progress %q", ok, why, r.progress.String())
	}
	r.w.check(t, r.st, ft, "fresh", 200)
	r.close(ft)
	snap := filepath.Join(r.dir, pageCatalogFile)
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("no snapshot after close: %v", err)
	}

	r.w.insert(t, r.st, 200, 260) // written while no engine runs
	r.w.churn(t, r.st, 260, 80)
	ft = r.open(nativeMode)
	if ok, why := r.rebuilt(); ok {
		t.Fatalf("an intact snapshot was rebuilt: %s", why)
	}
	r.w.check(t, r.st, ft, "snapshot loaded, log replayed", 300)
	r.close(ft)

	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	other := newPageRig(t, 12, 1000, 50) // another database's snapshot (other ids)
	r.close(other.open(nativeMode))
	foreign, err := os.ReadFile(filepath.Join(other.dir, pageCatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, why string
		data      []byte
	}{
		{"header bit flip", "snapshot header is corrupt", flip(good, len(pageCatalogMagic)+1)},
		{"body bit flip", "snapshot unusable", flip(good, len(good)/2)},
		{"truncated", "snapshot unusable", good[:len(good)*2/3]},
		{"empty", "snapshot header is corrupt", nil},
		{"foreign", "another database", foreign},
		{"missing", "no snapshot", nil},
	} {
		if tc.name == "missing" {
			if err := os.Remove(snap); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(snap, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r.w.churn(t, r.st, 260, 20)
		ft := r.open(nativeMode)
		if ok, why := r.rebuilt(); !ok || !strings.Contains(why, tc.why) {
			t.Fatalf("%s: rebuilt %v (%q), want a rebuild for %q", tc.name, ok, why, tc.why)
		}
		r.w.check(t, r.st, ft, tc.name, 150)
		r.close(ft)
	}
}

// flip returns data with one bit of byte i inverted.
func flip(data []byte, i int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 0x10
	return out
}

// TestPageCatalogBackendSwitch_C16: one database served in turn by the
// in-process backend, the native backend and with ENABLE_FTS=false, with
// writes between each start-up: each mode's snapshot resumes from its
// own mark and replays what the others wrote since, so the pages always
// equal SQL's and no snapshot is rebuilt. Neither backend reads the
// other's catalog (the in-process one also holds text lengths).
func TestPageCatalogBackendSwitch_C16(t *testing.T) {
	r := newPageRig(t, 21, 0, 150)
	modes := []struct {
		name string
		o    FullTextOptions
	}{{"in-process", FullTextOptions{}}, {"native", nativeMode}, {"fts-off", FullTextOptions{Disable: true}}}
	n := 150
	for round := range 7 {
		m := modes[round%len(modes)]
		ft := r.open(m.o)
		if round >= len(modes) && strings.Contains(r.progress.String(), "from SQL") {
			t.Fatalf("round %d (%s): a snapshot of this database was not used: %s", round, m.name, r.progress.String())
		}
		r.w.check(t, r.st, ft, m.name, 150)
		r.w.insert(t, r.st, n, n+20) // written while this mode runs
		n += 20
		r.w.churn(t, r.st, n, 30)
		r.w.check(t, r.st, ft, m.name+" after writes", 150)
		r.close(ft)
		r.w.churn(t, r.st, n, 30) // written while no engine runs
	}
	if _, err := os.Stat(filepath.Join(r.dir, pageCatalogFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "catalog.snap")); err != nil {
		t.Fatal(err)
	}
}

// TestPageCatalogAccessRecheck_C1: the catalog only chooses the page; the
// entries are re-read in SQL under the caller's read predicate and
// filters. A catalog that wrongly holds a private entry as public, on
// another thread, or with other metadata (as it would for an instant
// between a commit and its catch-up) still never returns it to a caller
// who cannot read it or whose filters it does not pass.
func TestPageCatalogAccessRecheck_C1(t *testing.T) {
	ctx := context.Background()
	r := newPageRig(t, 31, 0, 0)
	id := put(t, r.st, 1, "ann", "secret", nil)
	ft := r.open(nativeMode)
	defer r.close(ft)
	page := func(who string, f persist.Filter) []string {
		t.Helper()
		res, err := ft.Page(ctx, persist.Access{Principal: who}, persist.SearchQuery{Filter: f, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return entryIDs(res.Entries)
	}
	if got := page("ann", persist.Filter{}); len(got) != 1 || got[0] != id {
		t.Fatalf("owner: %v", got)
	}
	// Corrupt the catalog's view of the entry: public, thread "x",
	// metadata status=active. No change-log row follows, so no catch-up
	// repairs it.
	ft.pages.cat.Put(catalog.Entry{ID: id, Owner: "ann", Public: true, ThreadID: "x", Source: "user",
		ContentType: "text", CreatedAt: t0.Add(1e9), Metadata: []byte(`{"status":"active"}`)})
	if got := page("bob", persist.Filter{}); len(got) != 0 {
		t.Fatalf("bob reads ann's private entry through a stale catalog: %v", got)
	}
	if got := page("ann", persist.Filter{ThreadID: "x"}); len(got) != 0 {
		t.Fatalf("a thread filter the entry does not pass: %v", got)
	}
	meta := persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq", Value: "active"}}}
	if got := page("ann", meta); len(got) != 0 {
		t.Fatalf("a metadata condition the entry does not pass: %v", got)
	}
}

// FuzzPageCatalogSnapshot: any bytes read as search_context's catalog
// snapshot are either refused with a reason or decode to a catalog and
// mark that encode back to the same header; nothing panics.
func FuzzPageCatalogSnapshot(f *testing.F) {
	cat := catalog.NewMeta()
	cat.Put(catalog.Entry{ID: "a", Owner: "ann", Public: true, ThreadID: "t", Tags: []string{"x"}, CreatedAt: t0,
		Metadata: []byte(`{"status":"active","n":3}`)})
	good := append(pageCatalogHeader(snapfmt.Mark{Seq: 7, Entry: "a"}), cat.Encode(nil)...)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(pageCatalogMagic))
	f.Add(append(pageCatalogHeader(snapfmt.Mark{}), catalog.New().Encode(nil)...))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, pageCatalogFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, m, why := readPageCatalog(path)
		if why != "" {
			if c != nil {
				t.Fatalf("refused (%s) with a catalog", why)
			}
			return
		}
		if c == nil {
			t.Fatal("accepted without a catalog")
		}
		if h := pageCatalogHeader(m); !bytes.HasPrefix(data, h) {
			t.Fatalf("mark %+v does not re-encode to the header read", m)
		}
	})
}

// TestPageCatalogStartInBackground: the catalog is loaded or rebuilt
// after OpenFullText returns; pages asked meanwhile are SQL's (equal to
// it either way), a close during the start ends it cleanly, and a folder
// that cannot be made keeps the catalog in memory instead of failing
// the start-up. Under -race over a quarter of the entries
// (testtier.RaceShare; 192 s of the race pass at 3,000): each start
// still rebuilds in the background while the pages are asked.
func TestPageCatalogStartInBackground(t *testing.T) {
	ctx := context.Background()
	r := newPageRig(t, 41, 0, testtier.RaceShare(3000))
	for range 3 {
		ft, err := OpenFullText(ctx, r.st, follow.NewFeed(r.st), FullTextOptions{Backend: Native, Dir: r.dir, Progress: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		r.w.check(t, r.st, ft, "while starting", 20)
		if err := ft.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ft := r.open(nativeMode) // whatever the closes left: a usable snapshot or none
	r.w.check(t, r.st, ft, "after interrupted starts", 100)
	r.close(ft)

	file := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.dir = filepath.Join(file, "idx")
	ft = r.open(nativeMode)
	defer r.close(ft)
	if ft.pages.path != "" || !strings.Contains(r.progress.String(), "kept in memory") {
		t.Fatalf("path %q, progress %q", ft.pages.path, r.progress.String())
	}
	r.w.check(t, r.st, ft, "in memory", 100)
}

// flakyScans is a store whose first scans of the access fields fail, as
// a database unreachable for a moment would.
type flakyScans struct {
	persist.Store
	failures atomic.Int32 // scans still to fail
}

func (s *flakyScans) ScanAccessDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error) {
	if s.failures.Add(-1) >= 0 {
		return nil, errors.New("connection refused")
	}
	return s.Store.ScanAccessDocs(ctx, afterID, limit)
}

// TestPageCatalogStartRetried: a background start that fails (its rebuild
// cannot read the store) says so, pages stay SQL's meanwhile, and it is
// tried again until the catalog serves them; a close ends the retries.
func TestPageCatalogStartRetried(t *testing.T) {
	r := newPageRig(t, 43, 0, 200)
	st := &flakyScans{Store: r.st}
	st.failures.Store(1)
	r.st = st
	ft := r.open(nativeMode) // waits for the second start and its catalog
	if p := r.progress.String(); !strings.Contains(p, "connection refused; pages are answered in SQL, trying again in 1s") {
		t.Fatalf("progress does not say the start failed and is retried: %q", p)
	}
	r.w.check(t, r.st, ft, "after a retried start", 100)
	r.close(ft)

	// A store that never answers: the close ends the retries at once.
	st.failures.Store(1 << 30)
	r.dir = filepath.Join(t.TempDir(), "idx") // no snapshot: rebuild
	ft, err := OpenFullText(context.Background(), st, follow.NewFeed(st), FullTextOptions{Backend: Native, Dir: r.dir, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	r.w.check(t, r.st, ft, "while retrying", 20)
	done := make(chan error, 1)
	go func() { done <- ft.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the background start's retries")
	}
}
