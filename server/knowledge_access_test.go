package server_test

import (
	"github.com/contextd/contextd"
	"strings"
	"testing"
)

func kContains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q missing from:\n%s", what, w, got)
		}
	}
}

// TestKnowledgeContainerVisibilityPrivate: with the default private visibility a
// container and its files are the owner's alone; another principal sees
// nothing, not even through a name clash.
func TestKnowledgeContainerVisibilityPrivate(t *testing.T) {
	kStores(t, testKnowledgeContainerVisibilityPrivate)
}

func testKnowledgeContainerVisibilityPrivate(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{})
	e.call("alice", "container_create", map[string]any{"name": "docs"})
	e.call("alice", "upload_file", map[string]any{"containerId": "docs", "fileName": "secret.txt", "textContent": "the launch code is swordfish"})
	e.wait()
	kContains(t, "bob list", e.call("bob", "container_list", nil), "No containers found.")
	kContains(t, "bob stats", e.call("bob", "container_stats", map[string]any{"containerId": "docs"}), "Error: Container 'docs' not found.")
	// bob may use the same name: names are unique among what one can see.
	kContains(t, "bob create", e.call("bob", "container_create", map[string]any{"name": "docs"}), "Container 'docs' created.")
	kContains(t, "bob search", e.call("bob", "search_knowledge", map[string]any{"containerId": "docs", "query": "swordfish"}), "No results found.")
	kContains(t, "alice search", e.call("alice", "search_knowledge", map[string]any{"containerId": "docs", "query": "swordfish", "mode": "Keyword"}), "File: secret.txt")
}

// TestKnowledgeContainerVisibilityPublic: a public container is readable by all
// and writable by its owner only; counts, listings and search are the
// same for every reader.
func TestKnowledgeContainerVisibilityPublic(t *testing.T) {
	kStores(t, testKnowledgeContainerVisibilityPublic)
}

func testKnowledgeContainerVisibilityPublic(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{DefaultVisibility: "public"})
	e.call("alice", "container_create", map[string]any{"name": "shared"})
	up := e.call("alice", "upload_file", map[string]any{"containerId": "shared", "fileName": "a.txt", "textContent": "pelicans migrate"})
	e.wait()
	id := kUUIDRE.FindAllString(up, -1)[0]
	kContains(t, "bob list", e.call("bob", "container_list", nil), "- shared [managed] (1 files)")
	kContains(t, "bob search", e.call("bob", "search_knowledge", map[string]any{"containerId": "shared", "query": "pelicans", "mode": "Keyword"}), "File: a.txt")
	kContains(t, "bob upload", e.call("bob", "upload_file", map[string]any{"containerId": "shared", "fileName": "b.txt", "textContent": "x"}), "Error: Container 'shared' is read-only for you.")
	kContains(t, "bob delete", e.call("bob", "container_delete", map[string]any{"containerId": "shared"}), "Error: Container 'shared' is read-only for you.")
	kContains(t, "bob get", e.call("bob", "get_document", map[string]any{"containerId": "shared", "fileId": id}), "pelicans migrate")
	kContains(t, "alice delete", e.call("alice", "delete_file", map[string]any{"containerId": "shared", "fileId": id}), "File 'a.txt' (ID: "+id+") deleted.")
}

// TestKnowledgePublishRoleGuardsPublicContainers: with public containers and a
// publish role, a caller without the role cannot create one (the same
// rule as any public entry).
func TestKnowledgePublishRoleGuardsPublicContainers(t *testing.T) {
	kStores(t, testKnowledgePublishRoleGuardsPublicContainers)
}

func testKnowledgePublishRoleGuardsPublicContainers(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{DefaultVisibility: "public", PublishRole: "publisher"})
	kContains(t, "create", e.call("alice", "container_create", map[string]any{"name": "pub"}),
		"Error: Setting visibility 'public' requires the 'publisher' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have")
	kContains(t, "list", e.call("alice", "container_list", nil), "No containers found.")
}
