package server_test

import (
	"context"
	"fmt"
	"github.com/contextd/contextd"
	"strings"
	"sync"
	"testing"
)

// TestKnowledgeParallelCreatesH07: ten parallel creates of one name make one
// container; nine callers read "already exists".
func TestKnowledgeParallelCreatesH07(t *testing.T) { kStores(t, testKnowledgeParallelCreates) }

func testKnowledgeParallelCreates(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{})
	e.client("local")
	var wg sync.WaitGroup
	out := make([]string, 10)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = e.call("local", "container_create", map[string]any{"name": "race-test-container"})
		}()
	}
	wg.Wait()
	created := 0
	for _, o := range out {
		switch {
		case strings.HasPrefix(o, "Container 'race-test-container' created."):
			created++
		case o != "Error: Container 'race-test-container' already exists.":
			t.Errorf("unexpected answer %q", o)
		}
	}
	if created != 1 {
		t.Fatalf("%d creates succeeded, want 1", created)
	}
	if l := e.call("local", "container_list", nil); strings.Count(l, "race-test-container") != 1 {
		t.Fatalf("list:\n%s", l)
	}
}

// TestKnowledgeParallelUploadsSamePath: five parallel uploads to one new path make
// one document whose text is one writer's whole text (E2.6); deleting a
// document while it is ingested leaves nothing behind (H54).
func TestKnowledgeParallelUploadsSamePath(t *testing.T) {
	kStores(t, testKnowledgeParallelUploadsSamePath)
}

func testKnowledgeParallelUploadsSamePath(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{})
	if out := e.call("local", "container_create", map[string]any{"name": "cc"}); !strings.HasPrefix(out, "Container 'cc' created.") {
		t.Fatal(out)
	}
	var wg sync.WaitGroup
	ids := make([]string, 5)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := e.call("local", "upload_file", map[string]any{"containerId": "cc", "fileName": "same-name.md", "textContent": fmt.Sprintf("writer %d wrote this", i)})
			ids[i] = kUUIDRE.FindString(out)
		}()
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("document ids differ: %v", ids)
		}
	}
	e.wait()
	doc := e.call("local", "get_document", map[string]any{"containerId": "cc", "fileId": "/same-name.md"})
	if !kMatch(`---\nwriter \d wrote this$`, doc) {
		docs, _ := e.eng.Persist().ScanIndexDocs(context.Background(), "", 100)
		for _, d := range docs {
			t.Logf("%s %s %s %s v%d %q", d.ID, d.ThreadID, d.Owner, d.Visibility, d.Version, d.Metadata)
		}
		t.Fatalf("get_document:\n%s\nlist: %s", doc, e.call("local", "container_list", nil))
	}
	if s := e.call("local", "container_stats", map[string]any{"containerId": "cc"}); !strings.Contains(s, "Documents: 1\n") {
		t.Fatalf("stats:\n%s", s)
	}
	up := e.call("local", "upload_file", map[string]any{"containerId": "cc", "fileName": "gone.txt", "textContent": "ephemeral walrus"})
	id := kUUIDRE.FindString(up)
	if d := e.call("local", "delete_file", map[string]any{"containerId": "cc", "fileId": id}); !strings.HasPrefix(d, "File 'gone.txt'") {
		t.Fatalf("delete: %s", d)
	}
	e.wait()
	if r := e.call("local", "search_knowledge", map[string]any{"containerId": "cc", "query": "walrus", "mode": "Keyword"}); r != "No results found." {
		t.Fatalf("deleted document searchable:\n%s", r)
	}
	if s := e.call("local", "container_stats", map[string]any{"containerId": "cc"}); !strings.Contains(s, "Documents: 1\n") {
		t.Fatalf("stats after delete:\n%s", s)
	}
}
