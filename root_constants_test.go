package contextd

import (
	"testing"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/internal/write"
)

// TestPublicConstants: the public constants are written out, so the
// documentation shows their values; each must equal the internal
// package's value that the engine compares with.
func TestPublicConstants(t *testing.T) {
	for _, c := range []struct{ public, internal string }{
		{BackendInProcess, search.InProcess}, {BackendNative, search.Native},
		{GrepFilesWithMatches, request.GrepFilesWithMatches}, {GrepContent, request.GrepContent}, {GrepCount, request.GrepCount},
		{ReembedCommand, generate.ReembedCommand},
		{KnowledgeSemantic, knowledge.Semantic}, {KnowledgeKeyword, knowledge.Keyword}, {KnowledgeHybrid, knowledge.Hybrid},
		{KnowledgeKindManaged, knowledge.KindManaged}, {KnowledgeKindSource, knowledge.KindSource},
		{PrincipalUser, write.PrincipalUser}, {PrincipalGroup, write.PrincipalGroup},
		{PermissionRead, write.PermissionRead}, {PermissionWrite, write.PermissionWrite},
	} {
		if c.public != c.internal {
			t.Errorf("public constant %q, internal %q", c.public, c.internal)
		}
	}
	if KnowledgeDefaultTopK != knowledge.DefaultTopK {
		t.Errorf("KnowledgeDefaultTopK %d, internal %d", KnowledgeDefaultTopK, knowledge.DefaultTopK)
	}
}
