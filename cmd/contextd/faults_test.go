package main

// Fault tests not covered elsewhere (SIGKILL during batched
// writes: TestKillLosesNoAcknowledgedWrite; during ingestion:
// TestIngestCrashConverges; during full-text indexing:
// TestFTSRestartAfterKill; during index snapshotting:
// TestFaultKillDuringSnapshot; during a migration:
// TestFaultKillDuringMigration). Each names the failure it injects and
// what it checks afterwards.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	_ "modernc.org/sqlite"
)

// startCommand starts the binary, through the command prefix when one is
// given (prlimit and its flags: the binary is appended), with env added to
// a minimal environment.
func startCommand(t *testing.T, prefix []string, env ...string) *proc {
	t.Helper()
	p := &proc{stderr: &syncBuffer{}}
	base := []string{"PATH=" + os.Getenv("PATH")}
	cmdFunc := func(ctx context.Context, command string, e []string, args []string) (*exec.Cmd, error) {
		cmd := exec.Command(command, args...)
		cmd.Env = append(base, e...)
		p.cmd = cmd
		return cmd, nil
	}
	command, args := binary, []string(nil)
	if len(prefix) > 0 {
		command, args = prefix[0], append(prefix[1:len(prefix):len(prefix)], binary)
	}
	tr := transport.NewStdioWithOptions(command, env, args,
		transport.WithCommandFunc(cmdFunc), transport.WithCommandStderrWriter(p.stderr))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatalf("start contextd: %v", err)
	}
	p.c = client.NewClient(tr)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "contextd-test", Version: "1"}
	if _, err := p.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v (stderr: %s)", err, p.stderr.String())
	}
	t.Cleanup(func() {
		p.c.Close()
		if p.cmd != nil && p.cmd.Process != nil {
			p.cmd.Process.Kill()
		}
	})
	return p
}

// stop closes the server's stdin and waits for it to exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.c.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("the server did not exit after its stdin closed (stderr: %s)", p.stderr.String())
	}
}

// store stores text in thread and returns the id, or the tool error text.
func (p *proc) store(t *testing.T, thread, text string) (id, toolErr string) {
	t.Helper()
	res, err := p.call(context.Background(), "store_context", map[string]any{"thread_id": thread, "source": "agent", "text": text, "deduplicate": false})
	if err != nil {
		t.Fatalf("store_context: %v", err)
	}
	if res.IsError {
		return "", resultText(res)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	id, _ = sc["context_id"].(string)
	if id == "" {
		t.Fatalf("store_context: no context_id in %s", resultText(res))
	}
	return id, ""
}

// countThread is the number of entries search_context finds in thread.
func (p *proc) countThread(t *testing.T, thread string) int {
	t.Helper()
	res, err := p.call(context.Background(), "search_context", map[string]any{"thread_id": thread, "limit": 1000})
	if err != nil || res.IsError {
		t.Fatalf("search_context: %v %s", err, resultText(res))
	}
	return strings.Count(resultText(res), `"thread_id":`)
}

func paragraph(i int) string {
	var b strings.Builder
	for b.Len() < 24<<10 {
		fmt.Fprintf(&b, "entry %d word%d of the full disk test, line %d. ", i, b.Len()%977, b.Len())
	}
	return b.String()
}

// TestFaultFullDisk injects a full disk: the server runs under a file size
// limit (prlimit --fsize, as a full tmpfs would) a little above the
// database's size, and stores 24 KiB entries until SQLite cannot grow its
// files. Checked afterwards: the failing store reports the cause in fixed
// words (no driver text), reads still work in the same process, and after a
// restart without the limit every acknowledged entry is there and the
// failed one is not.
func TestFaultFullDisk(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	env := []string{"HOME=" + dir, "DB_PATH=" + db}
	p := start(t, env...)
	var acked []string
	for i := range 5 {
		id, msg := p.store(t, "disk", paragraph(i))
		if msg != "" {
			t.Fatalf("store before the limit: %s", msg)
		}
		acked = append(acked, id)
	}
	p.stop(t)
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	limit := fi.Size() + 512<<10
	p = startCommand(t, []string{"prlimit", fmt.Sprintf("--fsize=%d", limit)}, env...)
	failure := ""
	for i := 5; i < 200 && failure == ""; i++ {
		id, msg := p.store(t, "disk", paragraph(i))
		if msg != "" {
			failure = msg
			break
		}
		acked = append(acked, id)
	}
	if failure == "" {
		t.Fatalf("200 stores of 24 KiB succeeded under a %d-byte file size limit", limit)
	}
	if !strings.Contains(failure, "nothing was written") || strings.Contains(strings.ToLower(failure), "sqlite") {
		t.Fatalf("the failed store says %q: want the cause in fixed words, no driver text", failure)
	}
	t.Logf("failed after %d acknowledged stores: %s", len(acked), failure)
	// Another write fails the same way, promptly; reads still work.
	t0 := time.Now()
	if _, msg := p.store(t, "disk", paragraph(999)); msg == "" || time.Since(t0) > 10*time.Second {
		t.Fatalf("a second store under the full disk: %q after %v", msg, time.Since(t0))
	}
	if n := p.countThread(t, "disk"); n != len(acked) {
		t.Fatalf("search_context under the full disk finds %d entries, want the %d acknowledged", n, len(acked))
	}
	p.stop(t)
	p = start(t, env...)
	if n := p.countThread(t, "disk"); n != len(acked) {
		t.Fatalf("after a restart without the limit: %d entries, want the %d acknowledged", n, len(acked))
	}
	res, err := p.call(context.Background(), "get_context_by_ids", map[string]any{"context_ids": anySlice(acked)})
	if err != nil || res.IsError || strings.Count(resultText(res), `"id":`) != len(acked) {
		t.Fatalf("get_context_by_ids of the acknowledged entries after restart: %v %.300s", err, resultText(res))
	}
	if _, msg := p.store(t, "disk", "after the disk was freed"); msg != "" {
		t.Fatalf("store after the restart: %s", msg)
	}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestFaultLockHolder is the helper process of TestFaultLockedByAnotherProcess:
// it takes the write lock of CONTEXTD_LOCK_DB and holds it until its
// stdin closes.
func TestFaultLockHolder(t *testing.T) {
	path := os.Getenv("CONTEXTD_LOCK_DB")
	if path == "" {
		t.Skip("helper process")
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	conn.ExecContext(context.Background(), "ROLLBACK")
}

// TestFaultLockedByAnotherProcess injects a database locked by another
// process: a helper process holds SQLite's write lock while the server
// (busy timeout 500 ms) stores. Checked: the store fails with a clear
// message after about the busy timeout, never hangs; reads keep working
// (WAL); once the lock is released the next store succeeds.
func TestFaultLockedByAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	p := start(t, "HOME="+dir, "DB_PATH="+db, "SQLITE_BUSY_TIMEOUT_MS=500")
	if _, msg := p.store(t, "lock", "stored before the lock"); msg != "" {
		t.Fatal(msg)
	}
	holder := exec.Command(os.Args[0], "-test.run=^TestFaultLockHolder$")
	holder.Env = append(os.Environ(), "CONTEXTD_LOCK_DB="+db)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("lock holder: %q %v", line, err)
	}
	t0 := time.Now()
	_, msg := p.store(t, "lock", "stored while locked")
	took := time.Since(t0)
	if msg == "" {
		t.Fatal("a store succeeded while another process held the write lock")
	}
	if !strings.Contains(msg, "locked by another process") || strings.Contains(strings.ToLower(msg), "sqlite:") {
		t.Fatalf("the store under the lock says %q", msg)
	}
	if took < 400*time.Millisecond || took > 10*time.Second {
		t.Fatalf("the store failed after %v; want about the 500 ms busy timeout", took)
	}
	if n := p.countThread(t, "lock"); n != 1 {
		t.Fatalf("search_context under the lock finds %d entries, want 1", n)
	}
	stdin.Close()
	holder.Wait()
	if _, msg := p.store(t, "lock", "stored after the lock"); msg != "" {
		t.Fatalf("store after the lock was released: %s", msg)
	}
	if n := p.countThread(t, "lock"); n != 2 {
		t.Fatalf("%d entries after the lock, want 2", n)
	}
}
