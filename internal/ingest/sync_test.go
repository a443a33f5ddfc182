package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/internal/ingest"
	"github.com/contextd/contextd/internal/ingest/mcpcall"
	"github.com/contextd/contextd/internal/syncplan"
	_ "github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
)

// callerFor serves a real engine in process and returns a tool caller
// that calls as principal (the way an authenticated client would).
func callerFor(t *testing.T, eng *contextd.Engine, principal string) ingest.Caller {
	t.Helper()
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return principalCaller{mcpcall.Caller{Client: c}, principal}
}

// principalCaller puts a principal in the context of every call, as the
// HTTP transport does for a verified token.
type principalCaller struct {
	mcpcall.Caller
	principal string
}

func (p principalCaller) CallTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	return p.Caller.CallTool(contextd.WithPrincipal(ctx, contextd.Principal{ID: p.principal}), name, args)
}

func openEngine(t *testing.T, cfg contextd.Config) *contextd.Engine {
	t.Helper()
	cfg.DBPath = filepath.Join(t.TempDir(), "ctx.db")
	cfg.FTS.Progress = io.Discard
	eng, err := contextd.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

func mdTree(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nbody %d\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func syncDir(t *testing.T, c ingest.Caller, dir string, s ingest.Syncer) ingest.Summary {
	t.Helper()
	files, _, err := ingest.Walk(context.Background(), dir, ingest.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Caller = c
	if s.Thread == "" {
		s.Thread = "kb:t"
	}
	sum, err := s.Sync(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func plan(t *testing.T, c ingest.Caller, thread string) syncplan.Plan {
	t.Helper()
	raw, err := c.CallTool(context.Background(), "plan_context_sync", map[string]any{"thread_id": thread, "manifest": []any{}, "allow_empty_manifest": true})
	if err != nil {
		t.Fatal(err)
	}
	var p syncplan.Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSyncReplansUntilDone_R145: 250 stale entries (more than the 100
// deletes one plan lists) and duplicates are all removed in one sync, in
// ranges of 100 files, and another principal's public managed entry in
// the thread is counted, never touched.
func TestSyncReplansUntilDone_R145(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	alice, bob := callerFor(t, eng, "alice"), callerFor(t, eng, "bob")
	big := mdTree(t, 300)
	if sum := syncDir(t, alice, big, ingest.Syncer{RangeSize: 100}); sum.Created != 300 {
		t.Fatalf("first sync %v", sum)
	}
	// A duplicate of n0005 (a retransmitted store) and bob's public entry.
	for _, c := range []struct {
		caller ingest.Caller
		sid    string
		vis    string
	}{{alice, "n0005.md", "private"}, {bob, "n0007.md", "public"}} {
		if _, err := c.caller.CallTool(context.Background(), "store_context", map[string]any{"thread_id": "kb:t", "source": "agent",
			"text": "old copy", "deduplicate": false, "visibility": c.vis, "metadata": map[string]any{"ingest": syncplan.Block{
				Scope: "kb:t", SourceID: c.sid, MetaDigest: strings.Repeat("0", 64), SyncedAt: "2026-01-01T00:00:00Z"}.Map()}}); err != nil {
			t.Fatal(err)
		}
	}
	small := mdTree(t, 50)
	sum := syncDir(t, alice, small, ingest.Syncer{RangeSize: 100})
	if sum.Deleted != 251 || sum.Unchanged != 50 || sum.Created != 0 || sum.Foreign != 1 || len(sum.Failures) != 0 {
		t.Fatalf("second sync %v (foreign %d)", sum, sum.Foreign)
	}
	if p := plan(t, alice, "kb:t"); p.DeletesTotal != 50 || p.ForeignCount != 1 {
		t.Fatalf("left: %+v", p)
	}
	if p := plan(t, bob, "kb:t"); p.DeletesTotal != 1 {
		t.Fatalf("bob's entry: %+v", p)
	}
}

// TestRefusedWriteIsKept: a document the server refuses (longer than
// MAX_TEXT_CHARS) is reported and kept; the others are stored and the
// sync ends.
func TestRefusedWriteIsKept(t *testing.T) {
	eng := openEngine(t, contextd.Config{MaxTextChars: 100})
	c := callerFor(t, eng, "alice")
	dir := mdTree(t, 3)
	if err := os.WriteFile(filepath.Join(dir, "long.md"), []byte(strings.Repeat("long text ", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := syncDir(t, c, dir, ingest.Syncer{})
	if sum.Created != 3 || sum.Kept != 1 || len(sum.Failures) != 1 || sum.Failures[0].SourceID != "long.md" {
		t.Fatalf("%v %+v", sum, sum.Failures)
	}
	t.Logf("refusal: %s", sum.Failures[0].Reason)
}

// TestUnreadableFileNeverDeletes: a file stored by one sync and unreadable
// in the next (too large for this run's limit, a broken DOCX) stays as
// stored; when it reads again it is brought up to date.
func TestUnreadableFileNeverDeletes(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	c := callerFor(t, eng, "alice")
	dir := mdTree(t, 2)
	if sum := syncDir(t, c, dir, ingest.Syncer{}); sum.Created != 2 {
		t.Fatalf("%v", sum)
	}
	if err := os.WriteFile(filepath.Join(dir, "n0001.md"), []byte(strings.Repeat("grown ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "n0000.md"), nil, 0o644); err != nil { // truncated mid-write
		t.Fatal(err)
	}
	sum := syncDir(t, c, dir, ingest.Syncer{Extract: extractOptions(1024)})
	if sum.Deleted != 0 || sum.Updated != 0 || sum.Kept != 2 || sum.Empty != 1 || len(sum.Failures) != 1 {
		t.Fatalf("%v %+v", sum, sum.Failures)
	}
	if p := plan(t, c, "kb:t"); p.DeletesTotal != 2 {
		t.Fatalf("stored entries: %+v", p)
	}
	sum = syncDir(t, c, dir, ingest.Syncer{})
	if sum.Updated != 1 || sum.Kept != 1 || sum.Deleted != 0 {
		t.Fatalf("after: %v", sum)
	}
}

func extractOptions(maxBytes int64) extract.Options { return extract.Options{MaxBytes: maxBytes} }

// TestCacheSkipsUnchangedFiles: with a cache, a file whose size and time
// are unchanged is not read again (a same-size rewrite with the old time
// goes unseen, as with make or rsync), a file that changed is, and a
// cached file whose entry must be written again is extracted for it.
func TestCacheSkipsUnchangedFiles(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	c := callerFor(t, eng, "alice")
	dir := mdTree(t, 3)
	cachePath := filepath.Join(t.TempDir(), "cache.json")
	if sum := syncDir(t, c, dir, ingest.Syncer{Cache: ingest.OpenCache(cachePath)}); sum.Created != 3 {
		t.Fatalf("%v", sum)
	}
	p := filepath.Join(dir, "n0001.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	same := []byte("# Note 9\n\nbody 9\n") // the same length as "# Note 1\n\nbody 1\n"
	if err := os.WriteFile(p, same, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if sum := syncDir(t, c, dir, ingest.Syncer{Cache: ingest.OpenCache(cachePath)}); sum.Unchanged != 3 {
		t.Fatalf("cached: %v", sum)
	}
	if sum := syncDir(t, c, dir, ingest.Syncer{}); sum.Updated != 1 {
		t.Fatalf("without the cache the rewrite is seen: %v", sum)
	}
	// The entry of a cached, unchanged file is deleted on the server: the
	// plan creates it again, from the file's current text.
	if _, err := c.CallTool(context.Background(), "delete_context_batch", map[string]any{"thread_ids": []any{"kb:t"}}); err != nil {
		t.Fatal(err)
	}
	if sum := syncDir(t, c, dir, ingest.Syncer{Cache: ingest.OpenCache(cachePath)}); sum.Created != 3 || len(sum.Failures) != 0 {
		t.Fatalf("recreated: %v %+v", sum, sum.Failures)
	}
	if sum := syncDir(t, c, dir, ingest.Syncer{}); sum.Unchanged != 3 {
		t.Fatalf("the recreated entries hold the files' texts: %v", sum)
	}
	if err := os.WriteFile(cachePath, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sum := syncDir(t, c, dir, ingest.Syncer{Cache: ingest.OpenCache(cachePath)}); sum.Unchanged != 3 {
		t.Fatalf("a corrupt cache is an empty one: %v", sum)
	}
}

// TestEmptyFolderRefused: a sync of no files deletes nothing unless
// allowed (an unmounted folder looks empty).
func TestEmptyFolderRefused(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	c := callerFor(t, eng, "alice")
	if sum := syncDir(t, c, mdTree(t, 2), ingest.Syncer{}); sum.Created != 2 {
		t.Fatalf("%v", sum)
	}
	s := ingest.Syncer{Caller: c, Thread: "kb:t"}
	if _, err := s.Sync(context.Background(), nil); !errors.Is(err, cerrors.ErrInvalid) {
		t.Fatalf("empty folder: %v", err)
	}
	if p := plan(t, c, "kb:t"); p.DeletesTotal != 2 {
		t.Fatalf("entries deleted: %+v", p)
	}
	s.AllowEmpty = true
	if sum, err := s.Sync(context.Background(), nil); err != nil || sum.Deleted != 2 {
		t.Fatalf("allowed: %v %v", sum, err)
	}
}
