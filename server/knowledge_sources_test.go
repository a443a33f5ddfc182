package server_test

import (
	"github.com/contextd/contextd"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/hashembed"
)

// TestKnowledgeSourcesMirrorReadOnly: a KNOWLEDGE_SOURCES folder is listed as a
// [source] scope, searchable by every principal, mirrored on change, and
// not a container for list_files, get_document and the write tools.
func TestKnowledgeSourcesMirrorReadOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("guide/intro.md", "# Intro\n\nThe heron nests by the lake.")
	write("notes.txt", "Kestrels hover over fields.")
	write("skip.exe", "binary")
	e := &kEnv{t: t, dbPath: filepath.Join(t.TempDir(), "k.db"), emb: hashembed.New(64),
		opts: contextd.Config{Knowledge: contextd.KnowledgeConfig{Sources: []contextd.KnowledgeSource{{Name: "company-docs", Dir: dir}}, SourceDebounce: 50 * time.Millisecond}}}
	e.open()
	eventually := func(what string, check func() bool) {
		t.Helper()
		testtier.WaitFor(t, 20*time.Second, what, func() bool { e.wait(); return check() })
	}
	search := func(principal, q string) string {
		return e.call(principal, "search_knowledge", map[string]any{"containerId": "company-docs", "query": q, "mode": "Keyword"})
	}
	// Both files: the sync uploads them one after the other, and the
	// queue may be idle between the two.
	eventually("initial sync", func() bool {
		return strings.Contains(search("bob", "heron"), "File: intro.md") && strings.Contains(search("alice", "kestrels"), "File: notes.txt")
	})
	kContains(t, "list", e.call("bob", "container_list", nil), "- company-docs [source] (2 files)")
	kContains(t, "search path", search("alice", "kestrels"), "Path: /notes.txt")
	for tool, args := range map[string]map[string]any{
		"list_files":       {},
		"get_document":     {"fileId": "/notes.txt"},
		"upload_file":      {"fileName": "x.txt", "textContent": "x"},
		"bulk_upload":      {"files": `[{"filename":"x.txt","content":"x"}]`},
		"delete_file":      {"fileId": "00000000-0000-0000-0000-000000000000"},
		"bulk_delete":      {"fileIds": `["x"]`},
		"container_delete": {},
	} {
		args["containerId"] = "company-docs"
		kContains(t, tool, e.call("local", tool, args), "Error: Container 'company-docs' not found.")
	}
	kContains(t, "create clash", e.call("local", "container_create", map[string]any{"name": "company-docs"}), "Error: Container 'company-docs' already exists.")
	// A change, an addition and a removal are mirrored.
	write("notes.txt", "Ospreys dive for fish.")
	write("guide/extra.txt", "Puffins burrow on cliffs.")
	if err := os.Remove(filepath.Join(dir, "guide/intro.md")); err != nil {
		t.Fatal(err)
	}
	eventually("re-sync", func() bool {
		return strings.Contains(search("bob", "ospreys"), "notes.txt") && strings.Contains(search("bob", "puffins"), "extra.txt") &&
			search("bob", "heron") == "No results found." && search("bob", "kestrels") == "No results found."
	})
	kContains(t, "stats", e.call("bob", "container_stats", map[string]any{"containerId": "company-docs"}), "Documents: 2\n")
}
