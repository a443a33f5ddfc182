package contextd

import (
	"testing"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
)

// TestPublicConstants: the public constants are written out, so the
// documentation shows their values; each must equal the internal
// package's value that the engine compares with.
func TestPublicConstants(t *testing.T) {
	for _, c := range []struct{ public, internal string }{
		{BackendInProcess, search.InProcess}, {BackendNative, search.Native},
		{GrepFilesWithMatches, request.GrepFilesWithMatches}, {GrepContent, request.GrepContent}, {GrepCount, request.GrepCount},
		{ReembedCommand, generate.ReembedCommand},
	} {
		if c.public != c.internal {
			t.Errorf("public constant %q, internal %q", c.public, c.internal)
		}
	}
}
