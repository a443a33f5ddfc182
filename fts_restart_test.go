package contextd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const crashChildEnv = "CONTEXTD_FTS_CRASH_CHILD_DB"

// TestFTSCrashChild is the process TestFTSRestartAfterKill kills: it
// writes through an engine whose on-disk index follows every write, then
// commits more writes through a second engine with full-text search off
// (committed to SQL, never applied to the index), says "ready" and waits
// for SIGKILL.
func TestFTSCrashChild(t *testing.T) {
	db := os.Getenv(crashChildEnv)
	if db == "" {
		t.Skip("helper process of TestFTSRestartAfterKill")
	}
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	a, err := Open(ctx, Config{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 30; i++ {
		r, err := a.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: fmt.Sprintf("applied tok%d entry", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ContextID)
	}
	b, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Disable: true}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := b.Store(ctx, StoreRequest{ThreadID: "t", Source: "agent", Text: fmt.Sprintf("late%d entry", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5; i++ {
		text := fmt.Sprintf("updated upd%d entry", i)
		if _, err := b.Update(ctx, UpdateRequest{ContextID: ids[i], Text: &text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Delete(ctx, DeleteRequest{ContextIDs: ids[25:]}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute) // not a wait: the child idles here until the parent kills it
}

// TestFTSRestartAfterKill injects SIGKILL into a process whose on-disk
// full-text index lags SQL (writes, updates and deletes committed but not
// applied to the index). Checked afterwards: on restart the index catches
// up and agrees with SQL exactly, no entry missing or doubled.
func TestFTSRestartAfterKill(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("inside the helper process")
	}
	db := filepath.Join(t.TempDir(), "ctx.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFTSCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == "ready" {
			ready = true
			break
		}
	}
	if !ready {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper never got ready; stderr: %s", stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	var progress bytes.Buffer
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	eng, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &progress}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if strings.Contains(progress.String(), "rebuilding") {
		t.Fatalf("restart rebuilt instead of catching up: %s", progress.String())
	}
	count := func(q string) int {
		t.Helper()
		r, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return r.Count
	}
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"applied", 20},                          // 30 stored, 5 rewritten, 5 deleted
		{"late0", 1}, {"late19", 1}, {"late", 0}, // "late0".."late19" are distinct terms
		{"upd3", 1}, {"tok3", 0}, {"tok24", 1}, {"tok27", 0},
		{"entry", 45},
	} {
		if got := count(tc.q); got != tc.want {
			t.Fatalf("%q: %d results, want %d", tc.q, got, tc.want)
		}
	}
	// The index holds exactly the SQL entries.
	st, err := eng.Statistics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.FTS.IndexedEntries != st.TotalEntries || st.TotalEntries != 45 {
		t.Fatalf("indexed %d entries, SQL holds %d (want 45)", st.FTS.IndexedEntries, st.TotalEntries)
	}
}

// TestFTSTwoEngines: two engines on one database (as two processes would
// be) see each other's writes; the second finds the snapshot locked and
// keeps its index in memory, rebuilt from SQL.
func TestFTSTwoEngines(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ctx.db")
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	var pa, pb bytes.Buffer
	a, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &pa}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: "first walrus"}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &pb}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.Contains(pb.String(), "in use by another process") {
		t.Fatalf("second engine progress: %q", pb.String())
	}
	if _, err := b.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: "second walrus"}); err != nil {
		t.Fatal(err)
	}
	for name, eng := range map[string]*Engine{"a": a, "b": b} {
		r, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: "walrus", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if r.Count != 2 {
			t.Fatalf("engine %s sees %d walruses, want 2", name, r.Count)
		}
	}
}

// TestFTSSnapshotRebuilds injects a full-text snapshot that is stale
// (ahead of its database) or corrupt. Checked afterwards: it is detected
// and rebuilt from SQL with progress on stderr, and the database is never
// touched by it.
func TestFTSSnapshotRebuilds(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	open := func() (*Engine, string) {
		t.Helper()
		var progress bytes.Buffer
		eng, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &progress}})
		if err != nil {
			t.Fatal(err)
		}
		return eng, progress.String()
	}
	count := func(eng *Engine, q string) int {
		t.Helper()
		r, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return r.Count
	}
	eng, _ := open()
	for i := 0; i < 5; i++ {
		if _, err := eng.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: fmt.Sprintf("heron %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	// A clean snapshot reopens without a rebuild.
	eng, progress := open()
	if progress != "" || count(eng, "heron") != 5 {
		t.Fatalf("clean reopen: progress %q", progress)
	}
	_ = eng.Close()

	// Corrupt header: rebuilt, same answers.
	if err := os.WriteFile(filepath.Join(db+".index", "fts.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, progress = open()
	if !strings.Contains(progress, "corrupt") || !strings.Contains(progress, "rebuilt 5 entries") {
		t.Fatalf("corrupt header: progress %q", progress)
	}
	if got := count(eng, "heron"); got != 5 {
		t.Fatalf("after rebuild: %d herons", got)
	}
	_ = eng.Close()

	// A new, empty database under the old snapshot: the snapshot's
	// watermark is ahead of the change log, so it is stale.
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		_ = os.Remove(f)
	}
	eng, progress = open()
	defer eng.Close()
	if !strings.Contains(progress, "stale") {
		t.Fatalf("stale snapshot: progress %q", progress)
	}
	if got := count(eng, "heron"); got != 0 {
		t.Fatalf("stale snapshot still answers %d herons", got)
	}
}
