package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/mark3labs/mcp-go/mcp"
)

// searchKnowledgeTool declares search_knowledge. A request breaking one of
// its limits is an isError result with the reference's exact message;
// an unknown container stays a normal "Error: " result, checked first.
func searchKnowledgeTool() *toolDef {
	return knowledgeTool("search_knowledge",
		"Search a container using semantic, keyword, or hybrid mode. Returns ranked document chunks with scores. Use when answering questions from stored knowledge.", readOnly,
		[]param{
			{name: "query", typ: tString, required: true, desc: "The search query text"},
			{name: "containerId", typ: tString, required: true, desc: "Container ID (UUID) or name to search within"},
			{name: "mode", typ: tString, desc: "Search mode: Semantic (vector), Keyword (full-text), or Hybrid (both). Default: Hybrid"},
			{name: "topK", typ: tInteger, desc: "Number of results to return. Default: 10"},
			{name: "path", typ: tString, desc: "Filter results to a folder subtree (e.g., '/docs/')"},
			{name: "minScore", typ: tNumber, desc: "Minimum similarity score threshold (0.0-1.0). Defaults to server setting."},
		},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			req := contextd.KnowledgeSearchRequest{Container: a.str("containerId"), Query: a.str("query"), Mode: a.str("mode"), Path: a.str("path")}
			if a.has("topK") {
				k := a.int("topK")
				req.TopK = &k
			}
			if v, ok := a.float("minScore"); ok {
				req.MinScore = &v
			}
			res, err := eng.SearchKnowledge(ctx, req)
			var ce *cerrors.Error
			if errors.As(err, &ce) && errors.Is(err, cerrors.ErrInvalid) {
				return mcp.NewToolResultError(ce.Msg), nil
			}
			if err != nil {
				return nil, err
			}
			if len(res.Hits) == 0 {
				return "No results found.", nil
			}
			var b strings.Builder
			ms := res.Elapsed.Milliseconds()
			if len(res.Hits) < res.Total {
				fmt.Fprintf(&b, "Showing %d of %d matching chunk(s) in %dms (mode: %s):\n", len(res.Hits), res.Total, ms, res.Mode)
			} else {
				fmt.Fprintf(&b, "Found %d result(s) in %dms (mode: %s):\n", res.Total, ms, res.Mode)
			}
			for i, hit := range res.Hits {
				name, path := hit.Name, hit.Path
				if name == "" {
					name = "unknown"
				}
				if path == "" {
					path = "/"
				}
				fmt.Fprintf(&b, "\n--- Result %d ---\nScore: %.3f\nFile: %s\nPath: %s\nChunk: %d\nDocumentId: %s\nContent:\n%s\n",
					i+1, float32(hit.Score), name, path, hit.Chunk, hit.DocumentID, hit.Text)
			}
			return b.String(), nil
		})
}
