package contextd

import (
	"testing"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/internal/write"
)

// TestPublicConstants: the public constants (the root's and package
// api's) are written out, so the documentation shows their values; each
// must equal the internal package's value that the engine compares with.
func TestPublicConstants(t *testing.T) {
	for _, c := range []struct{ public, internal string }{
		{BackendInProcess, search.InProcess}, {BackendNative, search.Native},
		{api.GrepFilesWithMatches, request.GrepFilesWithMatches}, {api.GrepContent, request.GrepContent}, {api.GrepCount, request.GrepCount},
		{ReembedCommand, generate.ReembedCommand},
		{api.KnowledgeSemantic, knowledge.Semantic}, {api.KnowledgeKeyword, knowledge.Keyword}, {api.KnowledgeHybrid, knowledge.Hybrid},
		{api.KnowledgeKindManaged, knowledge.KindManaged}, {api.KnowledgeKindSource, knowledge.KindSource},
		{api.PrincipalUser, write.PrincipalUser}, {api.PrincipalGroup, write.PrincipalGroup},
		{api.PermissionRead, write.PermissionRead}, {api.PermissionWrite, write.PermissionWrite},
	} {
		if c.public != c.internal {
			t.Errorf("public constant %q, internal %q", c.public, c.internal)
		}
	}
	if api.KnowledgeDefaultTopK != knowledge.DefaultTopK {
		t.Errorf("KnowledgeDefaultTopK %d, internal %d", KnowledgeDefaultTopK, knowledge.DefaultTopK)
	}
}
