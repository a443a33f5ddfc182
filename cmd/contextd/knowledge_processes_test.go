package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// TestKnowledgeAcrossProcesses: two contextd processes on one database,
// the everyday case of an agent host starting a stdio server per
// session (on SQLite, both with the same home, so the same database file
// and index folder), or two replicas on one PostgreSQL schema. Every
// knowledge write made through one (container create and delete, an
// upload, an update_context of the document's entry, a file delete)
// shows in the other's container_list, container_stats, list_files,
// get_document and search_knowledge within a second of the writer having
// it Ready. The writer alternates, so each process both writes and
// follows. internal/knowledge's TestReplicasSeeEveryKnowledgeWrite runs
// random sequences of these against a model of the SQL state; this test
// is the same promise through the binary and its MCP clients.
func TestKnowledgeAcrossProcesses(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		home := t.TempDir()
		env := []string{"HOME=" + home, "DB_PATH=" + filepath.Join(home, ".mcp", "context_storage.db")}
		knowledgeAcross(t, start(t, env...), start(t, env...))
	})
	t.Run("postgresql", func(t *testing.T) {
		if os.Getenv("CONTEXTD_TEST_POSTGRES_URL") == "" {
			t.Skip("CONTEXTD_TEST_POSTGRES_URL is not set (scripts/test.sh starts a cluster)")
		}
		url, schema := pgtest.Schema(t)
		knowledgeAcross(t, start(t, replicaEnv(t, url, schema)...), start(t, replicaEnv(t, url, schema)...))
	})
}

var docIDRE = regexp.MustCompile(`Document ID: ([0-9a-f-]{36})`)

func knowledgeAcross(t *testing.T, a, b *proc) {
	ctx := context.Background()
	call := func(p *proc, tool string, args map[string]any) string {
		t.Helper()
		res, err := p.call(ctx, tool, args)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return resultText(res)
	}
	// within polls p until check passes, failing after a second. The
	// condition is what the other process answers, so there is no event
	// to wait on; 20 ms steps bound the polling's own cost.
	within := func(what string, p *proc, check func() string) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for {
			msg := check()
			if msg == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen within 1 s: %s", what, msg)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	expect := func(p *proc, tool string, args map[string]any, want []string, not []string) func() string {
		return func() string {
			out := call(p, tool, args)
			for _, w := range want {
				if !strings.Contains(out, w) {
					return fmt.Sprintf("%s answered %q, want %q in it", tool, out, w)
				}
			}
			for _, n := range not {
				if strings.Contains(out, n) {
					return fmt.Sprintf("%s answered %q, want no %q in it", tool, out, n)
				}
			}
			return ""
		}
	}
	// ready waits (up to a minute: ingestion runs in the background) until
	// the writer's own get_document has the document Ready with text.
	ready := func(p *proc, id, text string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			out := call(p, "get_document", map[string]any{"containerId": "kb", "fileId": id})
			if strings.HasSuffix(out, text) {
				return
			}
			if !strings.Contains(out, "still being ingested") || time.Now().After(deadline) {
				t.Fatalf("get_document through the writer: %q", out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	search := func(word string) map[string]any {
		return map[string]any{"containerId": "kb", "query": word, "mode": "Keyword"}
	}
	kb := map[string]any{"containerId": "kb"}

	if out := call(a, "container_create", map[string]any{"name": "kb", "description": "shared"}); !strings.Contains(out, "Container 'kb' created.") {
		t.Fatalf("container_create: %q", out)
	}
	within("container created by A, listed by B", b, expect(b, "container_list", map[string]any{}, []string{"- kb [managed] (0 files) — shared"}, nil))

	text := "# Guide\n\nThe quagga protocol handles retries."
	out := call(a, "upload_file", map[string]any{"containerId": "kb", "fileName": "guide.md", "path": "docs", "textContent": text})
	m := docIDRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("upload_file: %q", out)
	}
	id := m[1]
	ready(a, id, text)
	for _, c := range []struct {
		tool       string
		args       map[string]any
		want, none []string
	}{
		{"search_knowledge", search("quagga"), []string{"Found 1 result(s)", "Path: /docs/guide.md", "DocumentId: " + id}, nil},
		{"list_files", map[string]any{"containerId": "kb", "path": "/docs/"}, []string{fmt.Sprintf("[FILE] guide.md (%d bytes) ID: %s", len(text), id)}, nil},
		{"get_document", map[string]any{"containerId": "kb", "fileId": "/docs/guide.md"}, []string{"ID: " + id, text}, nil},
		{"container_stats", kb, []string{"Documents: 1\n", "Chunks: 1\n"}, []string{"processing"}},
		{"container_list", map[string]any{}, []string{"- kb [managed] (1 files)"}, nil},
	} {
		within("upload through A, "+c.tool+" through B", b, expect(b, c.tool, c.args, c.want, c.none))
	}

	// The document's entry edited with update_context, this time through
	// B: A's knowledge views follow, old words gone, size new.
	edited := "Edited: the okapi protocol replaced it."
	res, err := b.call(ctx, "update_context", map[string]any{"context_id": id, "text": edited})
	if err != nil || res.IsError {
		t.Fatalf("update_context of the document's entry: %v %s", err, resultText(res))
	}
	ready(b, id, edited)
	for _, c := range []struct {
		tool       string
		args       map[string]any
		want, none []string
	}{
		{"search_knowledge", search("okapi"), []string{"Found 1 result(s)", "DocumentId: " + id}, nil},
		{"search_knowledge", search("quagga"), []string{"No results found."}, nil},
		{"get_document", map[string]any{"containerId": "kb", "fileId": id}, []string{edited, fmt.Sprintf("Size: %d bytes", len(edited))}, []string{"quagga"}},
		{"list_files", map[string]any{"containerId": "kb", "path": "/docs/"}, []string{fmt.Sprintf("[FILE] guide.md (%d bytes)", len(edited))}, nil},
	} {
		within("update_context through B, "+c.tool+" through A", a, expect(a, c.tool, c.args, c.want, c.none))
	}

	// A file delete through B, seen by A.
	if out := call(b, "delete_file", map[string]any{"containerId": "kb", "fileId": id}); strings.HasPrefix(out, "Error") {
		t.Fatalf("delete_file: %q", out)
	}
	for _, c := range []struct {
		tool       string
		args       map[string]any
		want, none []string
	}{
		{"search_knowledge", search("okapi"), []string{"No results found."}, nil},
		{"get_document", map[string]any{"containerId": "kb", "fileId": id}, []string{"not found in this container"}, nil},
		{"list_files", kb, nil, []string{"[FILE]", "[DIR]"}},
		{"container_stats", kb, []string{"Documents: 0\n", "Chunks: 0\n"}, nil},
	} {
		within("delete_file through B, "+c.tool+" through A", a, expect(a, c.tool, c.args, c.want, c.none))
	}

	// The container deleted through A, gone for B.
	if out := call(a, "container_delete", kb); out != "Container 'kb' deleted." {
		t.Fatalf("container_delete: %q", out)
	}
	within("container_delete through A, container_list through B", b, expect(b, "container_list", map[string]any{}, []string{"No containers found."}, nil))
	within("container_delete through A, container_stats through B", b, expect(b, "container_stats", kb, []string{"Error: Container 'kb' not found."}, nil))
}
