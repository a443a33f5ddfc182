package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/ingest"
	"github.com/contextd/contextd/internal/ingest/mcpcall"
	"github.com/contextd/contextd/internal/syncplan"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
)

// corpusTree writes a folder with one file of every supported format,
// the PDF, DOCX and PPTX made by LibreOffice (index/extract/testdata).
func corpusTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	files := map[string]string{
		"README.md":            "# Handbook\n\nHow the field team works.\n",
		"guide/setup.txt":      "Install the anemometer on the mast.\n",
		"guide/tools/main.go":  "package main\n\nfunc main() {}\n",
		"data/stations.csv":    "station,altitude\nZermatt,1608\n",
		"data/config.json":     `{"interval_s": 60, "sensors": ["wind", "rain"]}`,
		"drafts/ignored.md":    "# Draft\n\nnot for the corpus\n",
		"image.png":            "\x89PNG\r\n",
		".gitignore":           "drafts/\n",
		"guide/.contextignore": "*.tmp\n",
		"guide/scratch.tmp.md": "kept out? no: *.tmp does not match .tmp.md\n",
		"guide/cache.tmp":      "ignored and unsupported\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "office"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"handbook.pdf", "handbook.docx", "handbook.html", "slides.pptx"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "index", "extract", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "office", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ingestRun runs `contextd ingest` in process and returns its exit code
// and standard output.
func ingestRun(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := run(context.Background(), append([]string{"ingest"}, args...), lookup, nil, &out, &errb)
	if code != exitOK && code != exitPartial {
		t.Logf("stderr: %s", errb.String())
	}
	return code, out.String()
}

// corpusState lists every managed entry of thread through list_ingest_state.
func corpusState(t *testing.T, c ingest.Caller, thread string) map[string][]syncplan.StateEntry {
	t.Helper()
	out := map[string][]syncplan.StateEntry{}
	args := map[string]any{"thread_id": thread, "limit": 200}
	for {
		raw, err := c.CallTool(context.Background(), "list_ingest_state", args)
		if err != nil {
			t.Fatal(err)
		}
		var page syncplan.StatePage
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			out[e.SourceID] = append(out[e.SourceID], e)
		}
		if page.NextCursor == nil {
			return out
		}
		args["cursor"] = *page.NextCursor
	}
}

// localState opens the database with the binary on stdio and lists the corpus.
func localState(t *testing.T, db, thread string) map[string][]syncplan.StateEntry {
	t.Helper()
	p := start(t, "DB_PATH="+db, "HOME="+t.TempDir())
	defer func() { _ = p.c.Close(); _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() }()
	return corpusState(t, mcpcall.Caller{Client: p.c}, thread)
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestIngestEndToEnd: the first sync stores every document, the second
// changes nothing, an edit, a rename and a delete give exactly one update,
// one create and two deletes, and a file that cannot be read this run is
// kept, not deleted.
func TestIngestEndToEnd(t *testing.T) {
	t.Parallel()
	dir := corpusTree(t)
	db := filepath.Join(t.TempDir(), "ctx.db")
	env := map[string]string{"DB_PATH": db, "HOME": t.TempDir()}
	want := []string{"README.md", "data/config.json", "data/stations.csv", "guide/scratch.tmp.md", "guide/setup.txt",
		"guide/tools/main.go", "office/handbook.docx", "office/handbook.html", "office/handbook.pdf", "office/slides.pptx"}

	code, out := ingestRun(t, env, dir, "--thread", "kb:field")
	if code != exitOK || !strings.HasPrefix(out, "10 files: created 10, updated 0, deleted 0, unchanged 0, kept 0, failed 0") ||
		!strings.Contains(out, "skipped: 2 ignored, 1 of unsupported formats") {
		t.Fatalf("first sync: exit %d\n%s", code, out)
	}
	state := localState(t, db, "kb:field")
	if got := sortedKeys(state); !slices.Equal(got, want) {
		t.Fatalf("stored sources %v", got)
	}
	code, out = ingestRun(t, env, "--thread", "kb:field", dir) // flags before PATH work too
	if code != exitOK || !strings.HasPrefix(out, "10 files: created 0, updated 0, deleted 0, unchanged 10, kept 0, failed 0") {
		t.Fatalf("second sync: exit %d\n%s", code, out)
	}

	// Edit, rename, delete; the dry run shows the plan and writes nothing.
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("guide/setup.txt", "Install the anemometer on the north mast.\n")
	if err := os.Rename(filepath.Join(dir, "data/stations.csv"), filepath.Join(dir, "data/sites.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "office/handbook.html")); err != nil {
		t.Fatal(err)
	}
	code, out = ingestRun(t, env, dir, "--thread", "kb:field", "--dry-run")
	for _, line := range []string{"create  data/sites.csv\n", "update  guide/setup.txt (text)\n",
		"delete  data/stations.csv " + state["data/stations.csv"][0].ContextID + " (not in the folder)\n",
		"delete  office/handbook.html " + state["office/handbook.html"][0].ContextID + " (not in the folder)\n"} {
		if code != exitOK || !strings.Contains(out, line) {
			t.Fatalf("dry run: exit %d, want %q in\n%s", code, line, out)
		}
	}
	code, out = ingestRun(t, env, dir, "--thread", "kb:field")
	if code != exitOK || !strings.HasPrefix(out, "9 files: created 1, updated 1, deleted 2, unchanged 7, kept 0, failed 0") {
		t.Fatalf("after changes: exit %d\n%s", code, out)
	}
	after := localState(t, db, "kb:field")
	if after["guide/setup.txt"][0].ContextID != state["guide/setup.txt"][0].ContextID ||
		*after["guide/setup.txt"][0].TextDigest != ingest.Digest("Install the anemometer on the north mast.") {
		t.Fatalf("setup.txt not updated in place: %+v", after["guide/setup.txt"])
	}

	// A PDF half-copied (unreadable this run) is kept as stored.
	pdfID := after["office/handbook.pdf"][0]
	write("office/handbook.pdf", "%PDF-1.4\n%truncated")
	code, out = ingestRun(t, env, dir, "--thread", "kb:field")
	if code != exitPartial || !strings.HasPrefix(out, "9 files: created 0, updated 0, deleted 0, unchanged 8, kept 1, failed 1") ||
		!strings.Contains(out, "failed  office/handbook.pdf: pdf: ") {
		t.Fatalf("unreadable file: exit %d\n%s", code, out)
	}
	if kept := localState(t, db, "kb:field")["office/handbook.pdf"]; len(kept) != 1 || kept[0].ContextID != pdfID.ContextID ||
		*kept[0].TextDigest != *pdfID.TextDigest || kept[0].SyncedAt != pdfID.SyncedAt {
		t.Fatalf("the unreadable PDF's entry changed: %+v", kept)
	}
}

// TestIngestThroughServer: the same folder synced through a running
// server (--server, streamable HTTP with a token) gives the same summary
// and the same stored digests as the local sync.
func TestIngestThroughServer(t *testing.T) {
	t.Parallel()
	dir := corpusTree(t)
	localDB := filepath.Join(t.TempDir(), "local.db")
	_, localOut := ingestRun(t, map[string]string{"DB_PATH": localDB, "HOME": t.TempDir()}, dir, "--thread", "kb:field")

	base := serveHTTP(t, map[string]string{"HOME": t.TempDir(), "DB_PATH": filepath.Join(t.TempDir(), "srv.db"),
		"MCP_AUTH_PROVIDER": "simple_token", "MCP_AUTH_TOKEN": "tok"})
	env := map[string]string{"HOME": t.TempDir()}
	// A token the server refuses is a configuration error (78, naming
	// --token), not a stopped sync to rerun (1).
	var errb bytes.Buffer
	wrong := run(context.Background(), []string{"ingest", dir, "--thread", "kb:field", "--server", base, "--token", "wrong"},
		func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil, io.Discard, &errb)
	if wrong != exitConfig || !strings.Contains(errb.String(), "--token") || !strings.Contains(errb.String(), "401") {
		t.Fatalf("wrong token: exit %d, want %d naming --token and the 401: %q", wrong, exitConfig, errb.String())
	}
	code, out := ingestRun(t, env, dir, "--thread", "kb:field", "--server", base, "--token", "tok")
	cut := func(s string) string { return s[:strings.Index(s, " (")] } // the elapsed time differs
	if code != exitOK || cut(out) != cut(localOut) {
		t.Fatalf("through the server: exit %d\n%s\nlocal:\n%s", code, out, localOut)
	}
	c, closeFn, code := connect(context.Background(), &ingestArgs{server: base, token: "tok"}, nil, io.Discard)
	if c == nil {
		t.Fatalf("connect: exit %d", code)
	}
	defer closeFn()
	remote := corpusState(t, c, "kb:field")
	local := localState(t, localDB, "kb:field")
	for sid, es := range local {
		r := remote[sid]
		if len(r) != 1 || len(es) != 1 || *r[0].TextDigest != *es[0].TextDigest || r[0].MetaDigest != es[0].MetaDigest {
			t.Fatalf("%s: local %+v remote %+v", sid, es, r)
		}
	}
	if len(remote) != len(local) {
		t.Fatalf("remote %d sources, local %d", len(remote), len(local))
	}
}

// TestIngestCrashConverges injects SIGKILL into `contextd ingest` twice in
// the middle of a sync of 1,200 files (5,000 in the long tier), 0.6 s and
// 1.2 s after each start. Checked afterwards: a rerun converges to exactly
// the folder (every file stored once, no duplicates) and its summary counts
// as created exactly the files the killed runs had not stored.
func TestIngestCrashConverges(t *testing.T) {
	t.Parallel()
	n := 1200 // two plan ranges; CONTEXTD_LONG=1 uses 5,000
	if testtier.On(t) {
		n = 5000
	}
	dir := filepath.Join(t.TempDir(), "docs")
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%05d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("# Note %d\n\nThe sensor %d reported wind at station %d.\n", i, i*7, i%13)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "ctx.db")
	env := []string{"DB_PATH=" + db, "HOME=" + t.TempDir()}
	for kill := 1; kill <= 2; kill++ {
		cmd := exec.Command(binary, "ingest", dir, "--thread", "kb:crash")
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(600*kill) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	stored := len(localState(t, db, "kb:crash"))
	cmd := exec.Command(binary, "ingest", dir, "--thread", "kb:crash")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	t.Logf("after two kills %d of %d stored; rerun: %s", stored, n, out)
	state := localState(t, db, "kb:crash")
	if len(state) != n {
		t.Fatalf("%d sources stored, want %d", len(state), n)
	}
	for sid, es := range state {
		if len(es) != 1 {
			t.Fatalf("%s stored %d times", sid, len(es))
		}
	}
	if !strings.Contains(string(out), fmt.Sprintf("%d files: created %d,", n, n-stored)) {
		t.Fatalf("rerun summary: %s (had %d)", out, stored)
	}
}

func TestIngestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"dir"}, {"dir", "--thread", ""}, {"a", "b", "--thread", "kb:x"},
		{"dir", "--thread", "kb:x", "--visibility", "secret"}, {"dir", "--thread", "kb:x", "--token", "t"},
		{"dir", "--thread", "kb:x", "--include", "[bad"}} {
		if code, _ := ingestRun(t, map[string]string{}, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	code, out := ingestRun(t, map[string]string{}, "--help")
	if code != exitOK || !strings.HasPrefix(out, "usage: contextd ingest PATH") {
		t.Fatalf("help: %d %s", code, out)
	}
}

// serveHTTP serves MCP over streamable HTTP in process, with the
// configuration env describes, on a free loopback port until t ends.
func serveHTTP(t *testing.T, env map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	env["FASTMCP_HOST"], env["FASTMCP_PORT"] = "127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cfg, err := setup.FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine.FTS.Progress = io.Discard
	eng, err := contextd.Open(context.Background(), cfg.Engine)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(eng, cfg.Server)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServeHTTP(ctx, cfg.HTTP) }()
	t.Cleanup(func() { cancel(); <-done; _ = eng.Close() })
	base := "http://" + cfg.HTTP.Addr()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			return base
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the HTTP server never answered /health")
		}
	}
}

// TestIngestWatch: --watch syncs once, then again after a change (one
// sync per burst), until the context ends.
func TestIngestWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "HOME": t.TempDir()}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ingest", dir, "--thread", "kb:w", "--watch", "--debounce", "400ms"}, lookup, nil, &out, io.Discard)
	}()
	waitOut := func(s string) {
		t.Helper()
		for start := time.Now(); !strings.Contains(out.String(), s); time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 20*time.Second {
				t.Fatalf("no %q in:\n%s", s, out.String())
			}
		}
	}
	waitOut("1 files: created 1,")
	time.Sleep(200 * time.Millisecond) // the watcher is set up
	for _, n := range []string{"b.md", "c.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("# "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	waitOut("3 files: created 2, updated 0, deleted 0, unchanged 1,")
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d", code)
	}
}

func TestIngestEmptyFolderNeedsAllowEmpty(t *testing.T) {
	t.Parallel()
	dir := corpusTree(t)
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "HOME": t.TempDir()}
	if code, _ := ingestRun(t, env, dir, "--thread", "kb:e"); code != exitOK {
		t.Fatalf("first sync: %d", code)
	}
	empty := t.TempDir()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := run(context.Background(), []string{"ingest", empty, "--thread", "kb:e"}, lookup, nil, &out, &errb)
	if code != exitFail || !strings.Contains(errb.String(), "holds no documents: a sync would delete every entry of kb:e (pass --allow-empty to do that)") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if code, out := ingestRun(t, env, empty, "--thread", "kb:e", "--allow-empty"); code != exitOK || !strings.HasPrefix(out, "0 files: created 0, updated 0, deleted 10,") {
		t.Fatalf("allowed: exit %d %s", code, out)
	}
}

// TestIngestTenThousandFiles (long tier): 10,000 real source and
// documentation files from the Go distribution synced from empty, then a
// no-change re-sync, which must finish (the whole command) within 10 s.
// Generation is off: the figure is the sync's, not the embedder's (the
// README gives both). It stays sequential, unlike the package's other
// tests: its 10 s bound is a wall time, and beside the parallel tests on
// a loaded 2-core machine (load 40) the re-sync took 33.8 s.
func TestIngestTenThousandFiles(t *testing.T) {
	testtier.Long(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	dir := filepath.Join(t.TempDir(), "corpus")
	var paths []string
	_ = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".txt")) {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("no Go source tree")
	}
	for i := range 10000 {
		b, err := os.ReadFile(paths[i%len(paths)])
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d%s", i, filepath.Ext(paths[i%len(paths)])))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(b, fmt.Sprintf("\n// copy %d\n", i)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"DB_PATH=" + filepath.Join(t.TempDir(), "ctx.db"), "HOME=" + t.TempDir(),
		"ENABLE_EMBEDDING_GENERATION=false", "ENABLE_SUMMARY_GENERATION=false"}
	for _, pass := range []string{"from empty", "no change"} {
		cmd := exec.Command(binary, "ingest", dir, "--thread", "kb:ten")
		cmd.Env = env
		start := time.Now()
		res, err := cmd.Output()
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v\n%s", pass, err, res)
		}
		t.Logf("%s: %s in %s (%.0f files/s)", pass, strings.SplitN(string(res), "\n", 2)[0], took.Round(time.Millisecond), 10000/took.Seconds())
		if pass == "no change" && (took > 10*time.Second || !strings.Contains(string(res), "unchanged 10000,")) {
			t.Fatalf("no-change re-sync of 10,000 files: %s, %s", took, res)
		}
	}
}
