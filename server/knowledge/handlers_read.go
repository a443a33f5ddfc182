package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	cerrors "github.com/contextd/contextd/errors"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/mark3labs/mcp-go/mcp"
)

func asError(err error, ce **cerrors.Error) bool { return errors.As(err, ce) }

// n0 is .NET's N0: thousands separated by commas.
func n0(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func (h *handlers) listFiles(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.ResolveManaged(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	l, err := h.svc.ListFiles(ctx, acc.Access, c, a.str("path"))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Contents of %s:\n\n", l.Folder)
	if len(l.Dirs) == 0 && len(l.Files) == 0 {
		b.WriteString("(empty)")
	}
	for _, d := range l.Dirs {
		fmt.Fprintf(&b, "[DIR]  %s/\n", d)
	}
	for _, f := range l.Files {
		fmt.Fprintf(&b, "[FILE] %s (%s bytes) ID: %s\n", f.Name, n0(f.Size), knowledge.FormatID(f.ID))
	}
	return text(b.String()), nil
}

func (h *handlers) getDocument(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.ResolveManaged(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	d, err := h.svc.Get(ctx, acc.Access, c, a.str("fileId"))
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(d.Text) == "" {
		return text(fmt.Sprintf("Document '%s' exists but contains no readable text content.", d.Name)), nil
	}
	// The text is returned byte for byte: no trimming of the document.
	return mcp.NewToolResultText(fmt.Sprintf("Document: %s\nPath: %s\nID: %s\nSize: %s bytes\nCreated: %s\n---\n%s",
		d.Name, d.Path, knowledge.FormatID(d.ID), n0(d.Size), d.CreatedAt.UTC().Format(timeLayout), d.Text)), nil
}

func (h *handlers) deleteFile(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.ResolveWritable(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	in := a.str("fileId")
	d, err := h.svc.DeleteFile(ctx, acc.Access, c, in)
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("File '%s' (ID: %s) deleted.", d.Name, in)), nil
}

func (h *handlers) bulkDelete(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	var ids []string
	if err := json.Unmarshal([]byte(a.str("fileIds")), &ids); err != nil {
		return text("Error: 'fileIds' must be a valid JSON array of strings."), nil
	}
	switch {
	case len(ids) == 0:
		return text("Error: 'fileIds' array must not be empty."), nil
	case len(ids) > 100:
		return text("Error: Maximum 100 files per bulk_delete call."), nil
	}
	c, err := h.svc.ResolveWritable(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	var failures []string
	ok := 0
	for _, id := range ids {
		if _, err := h.svc.DeleteFile(ctx, acc.Access, c, id); err != nil {
			var ce *cerrors.Error
			if !asError(err, &ce) {
				return nil, err
			}
			failures = append(failures, id+": "+ce.Msg)
			continue
		}
		ok++
	}
	out := fmt.Sprintf("Deleted %d of %d file(s).", ok, len(ids))
	if len(failures) > 0 {
		out += "\n\nFailures:\n- " + strings.Join(failures, "\n- ")
	}
	return text(out), nil
}

func (h *handlers) search(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.Resolve(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	q := knowledge.Query{Text: a.str("query"), Mode: knowledge.ParseMode(a.str("mode")), TopK: knowledge.DefaultTopK, Path: a.str("path")}
	if v, ok := a.nums["topK"]; ok {
		q.TopK = int(max(min(v, 1<<31), -1<<31))
	}
	if v, ok := a.nums["minScore"]; ok {
		q.MinScore = &v
	}
	if err := h.svc.ValidateQuery(q); err != nil {
		var ce *cerrors.Error
		if asError(err, &ce) {
			return mcp.NewToolResultError(ce.Msg), nil
		}
		return nil, err
	}
	res, err := h.svc.Search(ctx, acc.Access, c, q)
	if err != nil {
		return nil, err
	}
	if len(res.Hits) == 0 {
		return text("No results found."), nil
	}
	var b strings.Builder
	ms := res.Elapsed.Milliseconds()
	if len(res.Hits) < res.Total {
		fmt.Fprintf(&b, "Showing %d of %d matching chunk(s) in %dms (mode: %s):\n", len(res.Hits), res.Total, ms, q.Mode)
	} else {
		fmt.Fprintf(&b, "Found %d result(s) in %dms (mode: %s):\n", res.Total, ms, q.Mode)
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
			i+1, float32(hit.Score), name, path, hit.Chunk, knowledge.FormatID(hit.DocumentID), hit.Text)
	}
	return text(b.String()), nil
}
