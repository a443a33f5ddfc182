package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// binary is the contextd executable the tests here start: a symbolic
// link named contextd to this test binary, which TestMain turns into
// contextd when it is started under that name. It used to be a separate
// `go build` of the package: a second compile of package main (the test
// binary compiles it with its tests) and a second link of an 80 MB
// executable, 21 s of CPU on every run after any change below
// cmd/contextd (34 s of the package's 56 s of CPU on a quiet tree) for
// the same code the test binary already holds (under -race it is still a
// plain build of its own: TestMain). The version
// stamp, the one thing only a real build has, is TestVersionStamped's.
var binary string

// TestMain runs contextd's main when the test binary is started as
// binary, and the tests otherwise.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "contextd" {
		main() // exits
	}
	if os.Getenv("CONTEXTD_LOCK_DB") != "" { // the lock holder of faults_test.go needs no binary
		os.Exit(m.Run())
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "contextd-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "contextd")
	if testtier.Race {
		// Under -race the children stay a plain build, as before: a
		// race-instrumented child runs 5-10 times slower, and the race
		// pass is CI's longest step.
		build := exec.Command("go", "build", "-o", binary, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build contextd: %v\n%s", err, out)
			os.Exit(1)
		}
	} else if err := os.Symlink(exe, binary); err != nil {
		fmt.Fprintf(os.Stderr, "link contextd to the test binary: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a contextd child process with an MCP client on its stdio.
type proc struct {
	cmd    *exec.Cmd
	c      *client.Client
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the binary with env added to a minimal environment.
func start(t *testing.T, env ...string) *proc {
	t.Helper()
	return startCommand(t, nil, env...)
}

func (p *proc) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	return p.c.CallTool(ctx, req)
}

func resultText(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].(mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func TestStdioServerOnFreshHome(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := start(t, "HOME="+home)
	ctx := context.Background()

	tools, err := p.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 10 {
		t.Fatalf("tools/list returned %d tools, want at least 10", len(tools.Tools))
	}
	res, err := p.call(ctx, "store_context", map[string]any{"thread_id": "t", "source": "user", "text": "hello over stdio"})
	if err != nil || res.IsError {
		t.Fatalf("store_context: %v %s", err, resultText(res))
	}
	bad, err := p.call(ctx, "store_context", map[string]any{"thread_id": "t", "source": "robot", "text": "x"})
	if err != nil || !bad.IsError {
		t.Fatalf("store_context with a bad source: err %v, isError %v", err, bad != nil && bad.IsError)
	}
	got, err := p.call(ctx, "search_context", map[string]any{"thread_id": "t"})
	if err != nil || got.IsError {
		t.Fatalf("search_context: %v %s", err, resultText(got))
	}
	if !strings.Contains(resultText(got), "hello over stdio") || !strings.Contains(resultText(got), `"count":1`) {
		t.Fatalf("search_context after one store: %s", resultText(got))
	}
	if _, err := os.Stat(filepath.Join(home, ".mcp", "context_storage.db")); err != nil {
		t.Fatalf("default database not created in the home directory: %v", err)
	}
	if line := p.stderr.String(); !strings.Contains(line, "serving MCP on stdio") {
		t.Fatalf("start-up line missing from stderr: %q", line)
	}
}

func TestBadConfigurationExits78(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, env, want string }{
		{"truncation length", "SEARCH_TRUNCATION_LENGTH=5", "SEARCH_TRUNCATION_LENGTH"},
		{"blank db path", "DB_PATH=", "DB_PATH"},
		{"principal pattern", "ACCESS_CONTROL_DEFAULT_PRINCIPAL=has space", "ACCESS_CONTROL_DEFAULT_PRINCIPAL"},
		{"simple_token without token", "MCP_AUTH_PROVIDER=simple_token", "MCP_AUTH_TOKEN is required"},
		{"jwt without key", "MCP_AUTH_PROVIDER=jwt", "MCP_AUTH_JWT_PUBLIC_KEY"},
		{"port", "FASTMCP_PORT=70000", "FASTMCP_PORT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary)
			cmd.Env = []string{"HOME=" + t.TempDir(), c.env}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitConfig {
				t.Fatalf("exit = %v, want code %d (stderr %q)", err, exitConfig, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("stderr %q does not name %s", stderr.String(), c.want)
			}
		})
	}
}

// TestKillLosesNoAcknowledgedWrite injects SIGKILL into a server while 3
// writers store (after 300 acknowledged stores). Checked afterwards: every
// acknowledged store survives, the change log is contiguous with an insert
// row for each, and a restarted server serves them.
func TestKillLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	p := start(t, "HOME="+dir, "DB_PATH="+db)

	ids := killWhileWriting(t, p, 3, 300, func(ctx context.Context, w, i int) (string, error) {
		res, err := p.call(ctx, "store_context", map[string]any{
			"thread_id": fmt.Sprintf("crash-%d", w), "source": "agent",
			"text": fmt.Sprintf("entry %d of writer %d", i, w), "deduplicate": false,
			"tags": []any{"crash"}, "metadata": map[string]any{"i": i},
		})
		if err != nil || res.IsError {
			return "", fmt.Errorf("store_context: %v", err)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		id, _ := sc["context_id"].(string)
		return id, nil
	})

	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: db})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer st.Close()
	acc := persist.Access{Principal: "local"}
	for i := 0; i < len(ids); i += 100 {
		end := min(i+100, len(ids))
		got, err := st.Get(context.Background(), acc, ids[i:end], persist.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != end-i {
			t.Fatalf("acknowledged entries lost: %d of %d present in batch %d", len(got), end-i, i/100)
		}
	}
	changes, err := st.Changes(context.Background(), 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	inserted := map[string]bool{}
	for i, c := range changes {
		if c.Seq != int64(i+1) {
			t.Fatalf("change log not contiguous: row %d has seq %d", i, c.Seq)
		}
		if c.Op == persist.OpInsert {
			inserted[c.EntryID] = true
		}
	}
	for _, id := range ids {
		if !inserted[id] {
			t.Fatalf("acknowledged entry %s has no insert row in the change log", id)
		}
	}

	// The database still serves after the crash.
	st.Close()
	p2 := start(t, "HOME="+dir, "DB_PATH="+db)
	res, err := p2.call(context.Background(), "get_context_by_ids", map[string]any{"context_ids": []any{ids[0], ids[len(ids)-1]}})
	if err != nil || res.IsError || strings.Count(resultText(res), `"id"`) != 2 {
		t.Fatalf("get_context_by_ids after restart: %v %s", err, resultText(res))
	}
}
