package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sourceIDs(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.SourceID
	}
	return out
}

// TestWalkIgnoreFilesAndGlobs: nested ignore files apply below their
// directory only, negations work, VCS directories are skipped, globs
// select by source id, and the result is in code-point order.
func TestWalkIgnoreFilesAndGlobs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":             "*.log\nbuild/\n!keep.log\n",
		"a.md":                   "a",
		"keep.log":               "kept by negation",
		"debug.log":              "ignored",
		"build/out.md":           "ignored dir",
		"docs/.contextignore":    "private/\n*.txt\n",
		"docs/guide.md":          "g",
		"docs/notes.txt":         "ignored below docs",
		"docs/private/secret.md": "ignored",
		"notes.txt":              "not ignored at the root",
		"Zed.md":                 "upper case sorts first",
		"é.md":                   "after z in code-point order",
		"z.md":                   "z",
		".git/config.md":         "never",
		"img.png":                "unsupported",
	})
	files, sk, err := Walk(context.Background(), dir, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Zed.md", "a.md", "docs/guide.md", "keep.log", "notes.txt", "z.md", "é.md"}
	if got := sourceIDs(files); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if sk.Unsupported != 1 || sk.Ignored != 4 {
		t.Fatalf("skipped %+v", sk)
	}
	files, _, err = Walk(context.Background(), dir, WalkOptions{Include: []string{"**/*.md"}, Exclude: []string{"docs/**"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sourceIDs(files); !slices.Equal(got, []string{"Zed.md", "a.md", "z.md", "é.md"}) {
		t.Fatalf("globs: %v", got)
	}
	if _, _, err := Walk(context.Background(), dir, WalkOptions{Include: []string{"[x"}}); err == nil {
		t.Fatal("a bad glob must be refused")
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if files, _, err := Walk(context.Background(), link, WalkOptions{}); err != nil || !slices.Equal(sourceIDs(files), want) {
		t.Fatalf("through a symbolic link: %v %v", sourceIDs(files), err)
	}
	if _, _, err := Walk(context.Background(), filepath.Join(dir, "a.md"), WalkOptions{}); err == nil {
		t.Fatal("a file is not a folder")
	}
}

func TestWalkLongPathIsInvalid(t *testing.T) {
	long := strings.Repeat("d/", 100) + strings.Repeat("x", 60) + ".md" // 263 characters
	dir := writeTree(t, map[string]string{long: "x", "ok.md": "y"})
	files, sk, err := Walk(context.Background(), dir, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(sk.Invalid) != 1 || sk.Invalid[0] != long {
		t.Fatalf("files %v invalid %v", sourceIDs(files), sk.Invalid)
	}
}

// TestRanges: consecutive (after, through] ranges of at most 1,000 files,
// the first open below and the last open above.
func TestRanges(t *testing.T) {
	mk := func(n int) []File {
		fs := make([]File, n)
		for i := range fs {
			fs[i].SourceID = fmt.Sprintf("f%05d", i)
		}
		return fs
	}
	for _, tc := range []struct{ n, ranges int }{{0, 1}, {1, 1}, {1000, 1}, {1001, 2}, {2500, 3}} {
		rs := Ranges(mk(tc.n), 0)
		if len(rs) != tc.ranges {
			t.Fatalf("%d files: %d ranges", tc.n, len(rs))
		}
		if rs[0].After != nil || rs[len(rs)-1].Through != nil {
			t.Fatalf("%d files: outer bounds must be open", tc.n)
		}
		total := 0
		for i, r := range rs {
			total += len(r.Files)
			if len(r.Files) > 1000 {
				t.Fatalf("range of %d files", len(r.Files))
			}
			if i > 0 && (r.After == nil || *r.After != *rs[i-1].Through || *r.After != rs[i-1].Files[len(rs[i-1].Files)-1].SourceID) {
				t.Fatalf("range %d does not follow range %d", i, i-1)
			}
		}
		if total != tc.n {
			t.Fatalf("%d files in ranges, want %d", total, tc.n)
		}
	}
}

// TestWatchDebounces: a burst of changes gives one sync, a later change
// another, and a file in a directory created after the start is seen.
func TestWatchDebounces(t *testing.T) {
	dir := t.TempDir()
	var syncs atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, dir, 150*time.Millisecond, func(context.Context) error { syncs.Add(1); return nil },
			func(err error) { t.Error(err) })
	}()
	// The watcher is set up once a change is seen: a probe file is written
	// until a sync follows (the first write can come before Watch watches
	// the directory, and its event is then lost).
	// A sync comes a debounce (150 ms) after the write: a probe is
	// rewritten only after 4 debounces without one.
	for attempt := 0; syncs.Load() == 0; attempt++ {
		if attempt == 20 {
			t.Fatal("no sync after 20 writes of a probe file")
		}
		if err := os.WriteFile(filepath.Join(dir, "probe.md"), []byte{byte(attempt)}, 0o644); err != nil {
			t.Fatal(err)
		}
		testtier.Until(600*time.Millisecond, func() bool { return syncs.Load() > 0 })
	}
	base := syncs.Load()
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.md", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // not a wait: the burst's writes spread over 100 ms, each within the debounce
	}
	waitFor := func(n int32) {
		t.Helper()
		testtier.WaitFor(t, 5*time.Second, fmt.Sprintf("%d syncs (%d so far)", n, syncs.Load()-base), func() bool { return syncs.Load()-base >= n })
	}
	waitFor(1)
	time.Sleep(400 * time.Millisecond) // not a wait: a window of more than two debounces in which a second sync would come
	if got := syncs.Load() - base; got != 1 {
		t.Fatalf("a burst of 10 writes gave %d syncs", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Watch adds a new directory on its creation event, before the
	// debounced sync that event starts: once that sync ran, the
	// directory is watched.
	waitFor(2)
	if err := os.WriteFile(filepath.Join(dir, "new", "g.md"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(3)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
